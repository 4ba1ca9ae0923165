"""Outer limits around one sandboxed step: wall clock, memory of the whole tree, output cap.

Comparator and Lake set no time or memory limits of their own, so every step runs under this
watchdog. It polls the process tree (found through ``/proc`` parent links, because bubblewrap's
``--new-session`` and PID namespace put the children outside our process group), sums their
resident memory, and SIGKILLs the whole tree when the wall clock or the memory budget runs out.
Resource limits that do not break Lean are set too: no core dumps, a file-size cap.

In production the container's cgroup (docker-compose ``mem_limit``/``pids_limit``) is the
backstop for spikes faster than the polling interval.
"""

from __future__ import annotations

import dataclasses
import math
import os
import resource
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

OUTPUT_CAP_BYTES = 64 * 1024
MAX_FILE_SIZE_BYTES = 4 * 1024**3
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


@dataclasses.dataclass(frozen=True, slots=True)
class RunResult:
    """How a step ended. ``exit_code`` is None when the step was killed by the watchdog."""

    exit_code: int | None
    timed_out: bool
    memory_exceeded: bool
    wall_time_s: float
    peak_memory_mb: float
    # The last OUTPUT_CAP_BYTES of combined stdout/stderr. Untrusted: for operators' logs only,
    # never parsed for a verdict and never shown to users.
    output_tail: bytes
    spawn_error: str | None = None


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # The command name may contain spaces and parentheses: split after the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) < 2:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    return children


def process_tree(root: int) -> list[int]:
    """``root`` and all its live descendants."""
    children = _children_map()
    tree, stack = [], [root]
    while stack:
        pid = stack.pop()
        tree.append(pid)
        stack.extend(children.get(pid, []))
    return tree


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE_SIZE
    except (OSError, IndexError, ValueError):
        return 0


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return True  # gone
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] in (b"Z", b"X")


def kill_tree(root: int) -> None:
    """SIGKILL ``root`` and every descendant, repeating until none is left (forks race us)."""
    for _ in range(20):
        tree = process_tree(root)
        alive = False
        for pid in tree:
            if _is_zombie(pid):
                continue
            try:
                os.kill(pid, signal.SIGKILL)
                alive = True
            except ProcessLookupError:
                continue
            except PermissionError:
                continue
        try:
            os.killpg(root, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if not alive:
            return
        time.sleep(0.01)


def _limit_resources() -> None:  # runs in the child between fork and exec
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_SIZE_BYTES, MAX_FILE_SIZE_BYTES))


class _TailReader(threading.Thread):
    def __init__(self, stream: object) -> None:
        super().__init__(daemon=True)
        self._stream = stream
        self.tail = bytearray()

    def run(self) -> None:
        read = self._stream.read  # type: ignore[attr-defined]
        while True:
            chunk = read(65536)
            if not chunk:
                return
            self.tail += chunk
            if len(self.tail) > OUTPUT_CAP_BYTES:
                del self.tail[: len(self.tail) - OUTPUT_CAP_BYTES]


def run_limited(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    time_limit_s: float,
    memory_limit_mb: float,
    poll_interval_s: float = 0.05,
) -> RunResult:
    """Run ``argv`` to completion or until a limit is hit; never raises for the child's sake."""
    started = time.monotonic()
    try:
        process = subprocess.Popen(  # noqa: S603 - argv built by judge.lean.sandbox, no shell
            list(argv),
            env=dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_limit_resources,  # noqa: PLW1509 - no threads touch the fork window
        )
    except OSError as exc:
        return RunResult(None, False, False, 0.0, 0.0, b"", spawn_error=str(exc))

    reader = _TailReader(process.stdout)
    reader.start()
    limit_bytes = memory_limit_mb * 1024 * 1024
    peak = 0
    timed_out = memory_exceeded = False
    while True:
        if process.poll() is not None:
            break
        elapsed = time.monotonic() - started
        if elapsed > time_limit_s:
            timed_out = True
            kill_tree(process.pid)
            break
        used = sum(_rss_bytes(pid) for pid in process_tree(process.pid))
        peak = max(peak, used)
        if used > limit_bytes:
            memory_exceeded = True
            kill_tree(process.pid)
            break
        try:
            process.wait(timeout=poll_interval_s)
        except subprocess.TimeoutExpired:
            pass
    # Anything the step left behind (a daemonised grandchild) goes too.
    kill_tree(process.pid)
    exit_code = process.wait()
    reader.join(timeout=5)
    wall = time.monotonic() - started
    return RunResult(
        exit_code=None if (timed_out or memory_exceeded) else exit_code,
        timed_out=timed_out,
        memory_exceeded=memory_exceeded,
        wall_time_s=wall,
        # Rounded up: a tree killed for exceeding the limit never reports a peak at the limit.
        peak_memory_mb=math.ceil(peak * 10 / (1024 * 1024)) / 10,
        output_tail=bytes(reader.tail),
    )
