"""Running one sandboxed Lean step and reading what it left behind, defensively."""

from __future__ import annotations

import json
import re
import shutil
import stat
import time
from collections.abc import Sequence
from pathlib import Path

from judge.lean.limits import RunResult, run_limited
from judge.lean.sandbox import Layers, build_argv, host_env
from judge.lean.toolchain import Toolchain

MAX_REPORTED_AXIOMS = 20
_IDENTIFIER = re.compile(r"^[^\s\x00-\x1f]{1,200}$")


class SandboxFailed(Exception):
    """The sandbox itself could not run a trivial command: a platform fault (JUDGE_ERROR)."""


def run_step(
    toolchain: Toolchain,
    layers: Layers,
    command: Sequence[str],
    *,
    time_limit_s: float,
    memory_limit_mb: float,
    extra_env: dict[str, str] | None = None,
    extra_readable: Sequence[Path] = (),
    writable_binds: Sequence[tuple[Path, str]] = (),
) -> RunResult:
    for directory in (layers.upper, layers.workdir):
        directory.mkdir(parents=True, exist_ok=True)
    argv = build_argv(
        toolchain=toolchain,
        layers=layers,
        command=command,
        extra_env=extra_env,
        extra_readable=extra_readable,
        writable_binds=writable_binds,
    )
    return run_limited(
        argv,
        env=host_env(),
        cwd=layers.upper,
        time_limit_s=max(time_limit_s, 0.01),
        memory_limit_mb=memory_limit_mb,
    )


def check_sandbox(toolchain: Toolchain, layers: Layers, memory_limit_mb: float) -> None:
    """Run ``lake --version`` in exactly this sandbox: if even that fails, the fault is ours.

    Without this canary a sandbox that cannot start (bubblewrap's own exit 1) would read as the
    solution's compile error.
    """
    result = run_step(
        toolchain,
        layers,
        [str(toolchain.lake), "--version"],
        time_limit_s=60,
        memory_limit_mb=memory_limit_mb,
    )
    if result.exit_code != 0:
        reason = result.spawn_error or (
            "timed out" if result.timed_out else f"exit status {result.exit_code}"
        )
        raise SandboxFailed(f"the Lean sandbox could not run `lake --version` ({reason})")


def first_error_position(output: bytes, filename: str) -> tuple[int, int] | None:
    """(line, column) of the first ``<filename>:L:C: error`` in a build log.

    Only two integers leave the log, so a solution that prints a look-alike line can at worst
    point its own user at a wrong position; no text from the log is ever shown.
    """
    name = re.escape(filename.encode())
    # Lean prints `File.lean:L:C: error: ...`; Lake's build log `error: ./././File.lean:L:C: ...`.
    pattern = re.compile(
        rb"(?:(?:^|[\s/])" + name + rb":(\d+):(\d+): error)"
        rb"|(?:error: (?:\./)*" + name + rb":(\d+):(\d+):)",
        re.M,
    )
    match = pattern.search(output)
    if match is None:
        return None
    line, column = (match.group(1), match.group(2)) if match.group(1) else match.group(3, 4)
    return int(line), int(column)


def read_name_list(path: Path) -> tuple[str, ...] | None:
    """A JSON list of Lean names written by a probe, validated and capped, or None."""
    try:
        if not path.is_file() or path.stat().st_size > 64 * 1024:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, list):
        return None
    names = [item for item in data if isinstance(item, str) and _IDENTIFIER.match(item)]
    return tuple(dict.fromkeys(names))[:MAX_REPORTED_AXIOMS]


def remove_tree(path: Path) -> None:
    """Delete a job or staging folder, including read-only parts; never raises."""
    if not path.exists():
        return
    for directory in [path, *path.rglob("*")]:
        try:
            if directory.is_dir() and not directory.is_symlink():
                directory.chmod(directory.stat().st_mode | stat.S_IRWXU)
        except OSError:
            continue
    shutil.rmtree(path, ignore_errors=True)


STALE_AFTER_S = 24 * 3600


def remove_stale(parent: Path, prefix: str, *, older_than_s: float = STALE_AFTER_S) -> int:
    """Delete leftovers of killed workers (``prefix*`` folders untouched for a day)."""
    removed = 0
    try:
        entries = list(parent.iterdir())
    except OSError:
        return 0
    now = time.time()
    for entry in entries:
        try:
            stale = entry.name.startswith(prefix) and now - entry.stat().st_mtime > older_than_s
        except OSError:
            continue
        if stale:
            remove_tree(entry)
            removed += 1
    return removed


_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


def make_read_only(root: Path) -> None:
    """Drop write permission on the files of a finished prepared build.

    Directories keep theirs on purpose: overlayfs checks permissions on the merged view, so a
    read-only directory in a lower layer would forbid the solution's build from creating its own
    files beside it (in its upper layer). Files are what must never change: if Lake ever tried
    to rebuild the verifier inside a job, overwriting them fails and the job fails closed.
    """
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            path.chmod(path.stat().st_mode & ~_WRITE_BITS)
