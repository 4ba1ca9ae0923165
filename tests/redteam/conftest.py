"""Red-team fixtures: a real sandbox, host-side listeners, and a leftover check at the end."""

from __future__ import annotations

import collections.abc
import pathlib
import shutil
import socket

import pytest

from judge.python import PythonJudge
from judge.sandbox import procs


def _describe(pid: int) -> str:
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
    except OSError:
        return "gone"


@pytest.fixture(scope="session")
def redteam_judge() -> collections.abc.Iterator[PythonJudge]:
    if shutil.which("bwrap") is None:
        pytest.fail(
            "bubblewrap is not installed: the red-team suite needs the real sandbox. "
            "Install it with `apt-get install -y bubblewrap` (make test does this).",
            pytrace=False,
        )
    judge = PythonJudge(size=1)
    yield judge
    # After the suite: no process and no cgroup of this pool is left behind. (Other pools in
    # this pytest process -- the judge tests', the process-wide one -- are not ours to check.)
    sandbox = judge.sandbox_processes()
    cgroups = judge.cgroup_dirs()
    assert sandbox, "the pool should have had a running sandbox"
    judge.close()
    # Killed processes of the pid namespace are reaped by the host's init: exited (zombie)
    # counts as gone, still running does not.
    alive = {pid: _describe(pid) for pid, started in sandbox if procs.is_running((pid, started))}
    assert alive == {}, f"processes left behind: {alive}"
    assert [path for path in cgroups if pathlib.Path(path).exists()] == []


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
