"""Where a bench's CPU went, per role of the production-shaped stack: shared by the benches that
run it (bench/pipeline.py per verdict, bench/orders_http.py per placement).

A role is a process tree read from /proc (the process, its descendants, and what its reaped
children used): each stack process (web, the workers, beat) and this run's PostgreSQL and Redis
servers, found by the ports of ``DATABASE_URL`` and ``REDIS_URL`` (other checkouts on this
machine run servers of their own). Client processes or threads are added by the bench.
"""

from __future__ import annotations

import os
import pathlib
import urllib.parse

from judge.sandbox import procs

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_s(root: int) -> float:
    """CPU seconds of ``root`` and its descendants, reaped children included (cutime)."""
    total = 0.0
    for pid in [root, *procs.descendants(root)]:
        try:
            fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15]) / CLOCK_TICKS
    return total


def listening_pid(port: int) -> int | None:
    """The pid of the process that listens on loopback TCP ``port`` (its socket's owner)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = pathlib.Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            # local_address is HEX_IP:HEX_PORT; state 0A is LISTEN; field 9 is the inode.
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":
                inodes.add(f"socket:[{fields[9]}]")
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                if os.readlink(fd) in inodes:
                    return int(entry.name)
        except OSError:
            continue
    return None


def servers() -> dict[str, int]:
    """This run's PostgreSQL postmaster and Redis server, by the ports of their URLs."""
    found: dict[str, int] = {}
    for role, variable in (("postgresql", "DATABASE_URL"), ("redis", "REDIS_URL")):
        port = urllib.parse.urlsplit(os.environ[variable]).port
        pid = listening_pid(port) if port else None
        if pid is not None:
            found[role] = pid
    return found


def stack_roles(processes: dict[str, object]) -> dict[str, int]:
    """The roots of a production stack's roles (``stack.processes``) and of its servers."""
    roots = {role: process.pid for role, process in processes.items()}  # type: ignore[attr-defined]
    roots.update(servers())
    return roots


def snapshot(roots: dict[str, int]) -> dict[str, float]:
    """CPU seconds so far of each role."""
    return {role: tree_cpu_s(pid) for role, pid in roots.items()}


def ms_per_unit(
    before: dict[str, float], after: dict[str, float], units: int, **extra_s: float
) -> dict[str, float]:
    """Each role's CPU between two snapshots per unit of work (ms), ``extra_s`` roles (CPU
    seconds measured otherwise, e.g. the clients') beside them, and their ``total``."""
    count = max(units, 1)
    spent = {role: after[role] - before[role] for role in before}
    spent.update(extra_s)
    per_unit = {role: round(seconds / count * 1000, 2) for role, seconds in spent.items()}
    per_unit["total"] = round(sum(spent.values()) / count * 1000, 2)
    return per_unit


def cpu_bound_rate(total_ms: float) -> float | None:
    """Units per second this machine's cores could do at ``total_ms`` of CPU each."""
    return round((os.cpu_count() or 1) * 1000 / total_ms, 1) if total_ms else None
