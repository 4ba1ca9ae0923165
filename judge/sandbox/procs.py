"""Host-side process helpers: find and reliably kill a sandbox's whole process tree."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time

from judge.sandbox.errors import SandboxUnavailable


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


ProcessId = tuple[int, int]  # (pid, start time in clock ticks): survives pid reuse


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def identify(pids: list[int]) -> list[ProcessId]:
    """Pair each live pid with its start time, so a later check is not fooled by pid reuse."""
    found: list[ProcessId] = []
    for pid in pids:
        fields = _stat_fields(pid)
        if fields is not None:
            found.append((pid, int(fields[19])))
    return found


def is_running(process: ProcessId) -> bool:
    """True if that very process exists and is not a zombie (exited, waiting to be reaped)."""
    pid, started = process
    fields = _stat_fields(pid)
    if fields is None or int(fields[19]) != started:
        return False
    return fields[0] not in ("Z", "X")


def _status_field(pid: int, field: str) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return line.split()[1:]
    except OSError:
        return None
    return None


def ns_pid_of_pidfd(pidfd: int) -> int | None:
    """The pid, in its innermost pid namespace, of the process ``pidfd`` pins (the pidfd's
    fdinfo): tied to the pinned process, and a fraction of the cost of /proc/<pid>/status,
    which the kernel fills with the process's memory figures (once per verdict)."""
    try:
        fd = os.open(f"/proc/self/fdinfo/{pidfd}", os.O_RDONLY | os.O_CLOEXEC)
        try:
            data = os.read(fd, 4096).decode()
        finally:
            os.close(fd)
    except OSError:
        return None
    for line in data.splitlines():
        if line.startswith("NSpid:"):
            try:
                pid = int(line.split()[-1])
            except ValueError:
                return None
            return pid if pid > 0 else None  # -1 or 0: exited, or not in our namespaces
    return None


def ns_pid_of(host_pid: int) -> int | None:
    """The pid of a process in its innermost pid namespace."""
    values = _status_field(host_pid, "NSpid")
    try:
        return int(values[-1]) if values else None
    except ValueError:
        return None


def uids_of(host_pid: int) -> tuple[int, ...] | None:
    """Real, effective, saved and filesystem uid of a process, on the host."""
    values = _status_field(host_pid, "Uid")
    try:
        return tuple(int(value) for value in values) if values else None
    except ValueError:
        return None


def vm_data_bytes(host_pid: int) -> int | None:
    values = _status_field(host_pid, "VmData")
    try:
        return int(values[0]) * 1024 if values else None
    except ValueError:
        return None


def ns_init_pidfd(bwrap_pid: int) -> int:
    """pidfd of the process that is pid 1 of the sandbox's pid namespace."""
    for pid in descendants(bwrap_pid):
        if ns_pid_of(pid) == 1:
            pidfd = os.pidfd_open(pid)
            if ns_pid_of(pid) == 1:  # still the same process once pinned
                return pidfd
            os.close(pidfd)
    raise SandboxUnavailable("could not find the sandbox's pid-namespace init")
