"""Red-team fixtures: a real sandbox, host-side listeners, and a leftover check at the end."""

from __future__ import annotations

import collections.abc
import os
import pathlib
import shutil
import socket

import pytest

from judge.python import PythonJudge


def _descendants(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
    found: list[int] = []
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


def _describe(pid: int) -> str:
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
    except OSError:
        return "gone"


def _own_cgroups() -> list[pathlib.Path]:
    prefix = f"fmjudge-{os.getpid()}-"
    return [path for path in pathlib.Path("/sys/fs/cgroup").rglob(f"{prefix}*") if path.is_dir()]


@pytest.fixture(scope="session")
def redteam_judge() -> collections.abc.Iterator[PythonJudge]:
    if shutil.which("bwrap") is None:
        pytest.fail(
            "bubblewrap is not installed: the red-team suite needs the real sandbox. "
            "Install it with `apt-get install -y bubblewrap` (make test does this).",
            pytrace=False,
        )
    # Other fixtures (the judge tests' own pool) may own processes: take a baseline.
    baseline = set(_descendants(os.getpid()))
    cgroups_before = set(_own_cgroups())
    judge = PythonJudge(size=1)
    yield judge
    judge.close()
    # After the suite: no process and no cgroup of this pool is left behind.
    leftovers = sorted(set(_descendants(os.getpid())) - baseline)
    described = {pid: _describe(pid) for pid in leftovers}
    assert leftovers == [], f"processes left behind: {described}"
    assert set(_own_cgroups()) - cgroups_before == set()


@pytest.fixture
def host_listeners() -> collections.abc.Iterator[tuple[socket.socket, socket.socket]]:
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    tcp.setblocking(False)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    yield tcp, udp
    tcp.close()
    udp.close()
