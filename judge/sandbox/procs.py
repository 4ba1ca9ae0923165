"""Host-side process helpers: find and reliably kill a sandbox's whole process tree."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time


def _parent_map() -> dict[int, int]:
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parents[int(name)] = int(fields[1])
    return parents


def descendants(root: int) -> list[int]:
    """Host pids below ``root`` (children, grandchildren, ...)."""
    parents = _parent_map()
    found: list[int] = []
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


def kill_tree(root: int, timeout_s: float = 5.0) -> None:
    """SIGKILL ``root`` and every descendant, and wait until they have all exited."""
    pidfds: list[int] = []
    for pid in [root, *descendants(root)]:
        try:
            pidfds.append(os.pidfd_open(pid))
        except OSError:
            continue
    try:
        for pidfd in pidfds:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        deadline = time.monotonic() + timeout_s
        for pidfd in pidfds:
            # A pidfd becomes readable when its process has exited.
            remaining = max(0.0, deadline - time.monotonic())
            select.select([pidfd], [], [], remaining)
    finally:
        for pidfd in pidfds:
            os.close(pidfd)


def is_running(pid: int) -> bool:
    """True if ``pid`` exists and is not a zombie (exited, waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")
