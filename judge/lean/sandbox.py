"""The bubblewrap command lines for Lean steps (ours; judge/sandbox/ is the Python judge's).

Every Lean step (verifier build, solution build, axiom probe, comparator) runs in a fresh
bubblewrap sandbox that sees only:

- the system directories needed to run programs (``/usr`` and the ``/lib*``, ``/bin`` links, the
  dynamic linker's ``/etc/ld.so.cache`` and ``/etc/ld.so.conf``, and ``/etc/alternatives``: on
  Debian ``/usr/bin/which`` is an ``update-alternatives`` link through it, and Lake resolves every
  tool with ``which``), read-only;
- ``/etc/passwd``, ``/etc/group`` and ``/etc/gitconfig`` SYNTHESIZED by the judge (root, the
  judge's own user and nobody; ``safe.directory = *`` for the read-only Lake packages), never the
  host's: Lean's ``include_str "/etc/passwd"`` reads an absolute path (``FilePath.join`` drops the
  base), so whatever ``/etc`` file is mounted can end up in an olean or a verdict;
- the Lean toolchain directory, read-only, and bubblewrap and git themselves when they live
  outside those directories (Lake runs ``which`` on both and starts its own bubblewrap inside ours);
- ``/judge/work``: an overlay whose lower layers are the pinned Lake project, the prepared
  verifier and the job's trusted sources, and whose only writable layer is this job's own
  directory;
- a private ``/tmp`` (tmpfs), ``/proc`` and ``/dev``;

and nothing else: not the home directories, not FormalMarket's source tree, not other jobs, not
the environment (``--clearenv``), not the network (``--unshare-all``). Mount points Lake's own
inner bubblewrap covers (``/home``, ``/root``, ``/run/user``, ``/var``) are created empty so that it
can start inside ours.

Layers are listed bottom first, as bubblewrap's ``--overlay-src`` options are (the last one given
is the top lower layer).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from judge.lean.toolchain import Toolchain

WORK_MOUNT = "/judge/work"
SANDBOX_HOME = "/tmp/home"  # noqa: S108 - a private tmpfs inside the sandbox
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# The dynamic linker's files; nothing in them is about the host's users or secrets.
_SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf")
# Synthesized per judge user (see job_etc_dir), bound read-only at these paths. Without them
# git (run by Lake) cannot name the current user and refuses the root-owned Lake packages.
SYNTHESIZED_ETC = ("passwd", "group", "gitconfig")
# Directories of symlinks only: Debian's `which`, `awk`, `pager`... are alternatives links.
_SYSTEM_ETC_DIRS = ("/etc/alternatives",)
# Created empty so that Lake's inner bubblewrap finds its mount points on our read-only root.
_INNER_MOUNT_POINTS = ("/home", "/root", "/run", "/run/user", "/var")


@dataclasses.dataclass(frozen=True, slots=True)
class Layers:
    """An overlay at WORK_MOUNT: read-only ``lower`` (bottom first), one writable ``upper``."""

    lower: tuple[Path, ...]
    upper: Path
    workdir: Path


def synthesized_etc(uid: int, gid: int) -> dict[str, str]:
    """The job's ``/etc/passwd``, ``/etc/group``, ``/etc/gitconfig``: what Lake and git need.

    bubblewrap keeps the caller's uid and gid inside the sandbox, so git finds the judge's own
    user by its id; its home is the sandbox's private one.
    """
    users = {
        0: ("root", 0, "/root"),
        uid: ("judge", gid, SANDBOX_HOME),
        65534: ("nobody", 65534, "/nonexistent"),
    }
    passwd = "".join(
        f"{name}:x:{user}:{group}:{name}:{home}:/usr/sbin/nologin\n"
        for user, (name, group, home) in sorted(users.items())
    )
    groups = {0: "root", gid: "judge", 65534: "nogroup"}
    group = "".join(f"{name}:x:{number}:\n" for number, name in sorted(groups.items()))
    # The Lake packages of the prepared projects are owned by another user and read-only.
    gitconfig = "[safe]\n\tdirectory = *\n"
    return {"passwd": passwd, "group": group, "gitconfig": gitconfig}


def job_etc_dir(parent: Path, uid: int | None = None, gid: int | None = None) -> Path:
    """A folder under ``parent`` holding the synthesized files, written once, read-only."""
    uid = os.getuid() if uid is None else uid
    gid = os.getgid() if gid is None else gid
    files = synthesized_etc(uid, gid)
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:16]
    target = parent / f".etc-{digest}"
    if all((target / name).is_file() for name in files):
        return target
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".etc-staging-", dir=parent))
    for name, text in files.items():
        (staging / name).write_text(text, encoding="utf-8")
        (staging / name).chmod(0o444)
    staging.chmod(0o755)
    try:
        staging.rename(target)
    except OSError:
        # Another worker got there first with the same content.
        shutil.rmtree(staging, ignore_errors=True)
    return target


def system_mount_args(etc_dir: Path | None = None) -> list[str]:
    """Read-only system directories, mirroring the host's merged-/usr symlinks.

    With ``etc_dir`` (from :func:`job_etc_dir`), its synthesized files are bound at ``/etc``.
    """
    args: list[str] = []
    for name in _SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    for name in _SYSTEM_FILES:
        if Path(name).is_file():
            args += ["--ro-bind", name, name]
    for name in _SYSTEM_ETC_DIRS:
        if Path(name).is_dir():
            args += ["--ro-bind", name, name]
    if etc_dir is not None:
        for name in SYNTHESIZED_ETC:
            args += ["--ro-bind", str(etc_dir / name), f"/etc/{name}"]
    return args


def _visible_without_bind(path: Path, toolchain: Toolchain) -> bool:
    if path.is_relative_to(toolchain.prefix):
        return True
    return any(path.is_relative_to(name) and not Path(name).is_symlink() for name in _SYSTEM_DIRS)


def tool_binds(toolchain: Toolchain) -> list[Path]:
    """bubblewrap and git when they are not already under a mounted system or toolchain dir."""
    return [
        tool
        for tool in (toolchain.bwrap, toolchain.git)
        if not _visible_without_bind(tool, toolchain)
    ]


def comparator_env(toolchain: Toolchain) -> dict[str, str]:
    """The variables step 4 runs with (and the canary resolves tools with)."""
    if toolchain.standalone_comparator is None:
        return {"COMPARATOR_BWRAP": str(toolchain.bwrap)}
    assert toolchain.landrun is not None and toolchain.lean4export is not None
    env = {
        "COMPARATOR_LANDRUN": str(toolchain.landrun),
        "COMPARATOR_LEAN4EXPORT": str(toolchain.lean4export),
    }
    if toolchain.nanoda is not None:
        env["COMPARATOR_NANODA"] = str(toolchain.nanoda)
    return env


def lake_inner_argv(toolchain: Toolchain, command: Sequence[str]) -> list[str]:
    """A bubblewrap command line of the kind ``lake comparator`` starts inside our sandbox.

    Lake's ``buildSandboxArgs`` for a build: ``/`` read-only, tmpfs over the home directories,
    ``/run/user``, ``/tmp``, ``/run`` and ``/var``, the project and toolchain read-only, the
    project's ``.lake`` writable, ``--unshare-all``; started through ``env -i`` as Lake does.
    Used by the canary and the preflight checks, never to run a solution.
    """
    work = WORK_MOUNT
    prefix = str(toolchain.prefix)
    return [
        "env",
        "-i",
        str(toolchain.bwrap),
        *("--ro-bind", "/", "/"),
        *("--tmpfs", "/home", "--tmpfs", "/root", "--tmpfs", "/run/user"),
        *("--tmpfs", "/tmp"),  # noqa: S108 - Lake's own private /tmp inside the nested sandbox
        *("--dir", SANDBOX_HOME, "--dev", "/dev", "--proc", "/proc", "--clearenv"),
        *("--tmpfs", "/run", "--tmpfs", "/var"),
        *("--ro-bind", work, work, "--ro-bind", prefix, prefix),
        *("--bind", f"{work}/.lake", f"{work}/.lake"),
        *("--setenv", "PATH", sandbox_env(toolchain)["PATH"]),
        *("--setenv", "LEAN_ABORT_ON_PANIC", "1"),
        *("--setenv", "HOME", SANDBOX_HOME),
        *("--unshare-all", "--die-with-parent", "--new-session", "--chdir", work, "--"),
        *command,
    ]


def sandbox_env(toolchain: Toolchain, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {
        "PATH": f"{toolchain.prefix}/bin:/usr/local/bin:/usr/bin:/bin",
        "HOME": SANDBOX_HOME,
        "LANG": "C.UTF-8",
        "LEAN_ABORT_ON_PANIC": "1",
    }
    env.update(extra or {})
    return env


def build_argv(
    *,
    toolchain: Toolchain,
    layers: Layers,
    command: Sequence[str],
    extra_env: Mapping[str, str] | None = None,
    extra_readable: Sequence[Path] = (),
    writable_binds: Sequence[tuple[Path, str]] = (),
) -> list[str]:
    """The full ``bwrap ... -- command`` argv for one step."""
    argv = [
        str(toolchain.bwrap),
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "judge",
        "--clearenv",
    ]
    argv += system_mount_args(job_etc_dir(toolchain.work_dir))
    private_tmp = "/tmp"  # noqa: S108 - a fresh tmpfs, private to this sandbox
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", private_tmp, "--dir", SANDBOX_HOME]
    for point in _INNER_MOUNT_POINTS:
        argv += ["--dir", point]
    argv += ["--ro-bind", str(toolchain.prefix), str(toolchain.prefix)]
    readable = [*tool_binds(toolchain), *extra_readable]
    if toolchain.nanoda is not None and not toolchain.nanoda.is_relative_to(toolchain.prefix):
        readable.append(toolchain.nanoda)
    for path in readable:
        argv += ["--ro-bind", str(path), str(path)]
    for layer in layers.lower:
        argv += ["--overlay-src", str(layer)]
    argv += ["--overlay", str(layers.upper), str(layers.workdir), WORK_MOUNT]
    for source, destination in writable_binds:
        argv += ["--bind", str(source), destination]
    for name, value in sandbox_env(toolchain, extra_env).items():
        argv += ["--setenv", name, value]
    argv += ["--chdir", WORK_MOUNT, "--", *command]
    return argv


def host_env() -> dict[str, str]:
    """The environment bubblewrap itself starts with (the sandbox gets --clearenv anyway)."""
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
