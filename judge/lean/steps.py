"""Running one sandboxed Lean step and reading what it left behind, defensively."""

from __future__ import annotations

import contextlib
import json
import os
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


def _plain_parent(root: Path, relative: str) -> Path | None:
    """``root/relative``'s parent if every folder below ``root`` is a real one (no symlink)."""
    current = root
    for part in Path(relative).parent.parts:
        current = current / part
        try:
            if not stat.S_ISDIR(current.lstat().st_mode):
                return None
        except OSError:
            return None
    return current


def read_report(root: Path, relative: str, max_bytes: int = 64 * 1024) -> str | None:
    """The text of ``root/relative`` if it is a regular file reached without any symlink.

    ``root`` is a layer the untrusted build wrote: the host never follows a link it placed.
    """
    parent = _plain_parent(root, relative)
    if parent is None:
        return None
    try:
        fd = os.open(parent / Path(relative).name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(max_bytes + 1).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


def discard_report(root: Path, relative: str) -> None:
    """Remove ``root/relative`` (or the first non-folder on its way) without following links."""
    current = root
    for part in Path(relative).parts:
        current = current / part
        try:
            mode = current.lstat().st_mode
        except OSError:
            return
        if not stat.S_ISDIR(mode):
            with contextlib.suppress(OSError):
                current.unlink()
            return
    shutil.rmtree(current, ignore_errors=True)


def read_name_list(root: Path, relative: str) -> tuple[str, ...] | None:
    """A JSON list of Lean names written by a probe, validated and capped, or None."""
    text = read_report(root, relative)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
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
