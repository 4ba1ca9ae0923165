"""Each zygote runs as a pool uid of its own: leased, distinct, unprivileged, seen from the host."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from judge.python import PythonJob, PythonJudge
from judge.sandbox import identity, procs
from judge.sandbox.errors import SandboxUnavailable


@pytest.fixture
def lock_dir(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    folder = tmp_path / "uids"
    monkeypatch.setenv("JUDGE_SANDBOX_UID_LOCK_DIR", str(folder))
    monkeypatch.setenv("JUDGE_SANDBOX_UID_BASE", "61000")
    monkeypatch.setenv("JUDGE_SANDBOX_UID_COUNT", "3")
    return folder


def test_two_leases_get_two_uids_and_a_released_uid_is_leased_again(lock_dir: pathlib.Path) -> None:
    first = identity.lease_uid()
    second = identity.lease_uid()

    assert (first.uid, second.uid) == (61000, 61001)
    first.release()
    again = identity.lease_uid()
    assert again.uid == 61000
    second.release()
    again.release()


def test_a_uid_leased_by_another_process_is_not_leased_here(lock_dir: pathlib.Path) -> None:
    holder = subprocess.Popen(  # a worker process holding uid 61000
        [
            sys.executable,
            "-c",
            "import sys; from judge.sandbox import identity; lease = identity.lease_uid(); "
            "print(lease.uid, flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(pathlib.Path(__file__).resolve().parents[3])},
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "61000"

        lease = identity.lease_uid()

        assert lease.uid == 61001
        lease.release()
    finally:
        holder.communicate("")
    # The kernel dropped the holder's lock when it exited.
    lease = identity.lease_uid()
    assert lease.uid == 61000
    lease.release()


def test_the_pool_runs_out_loudly(lock_dir: pathlib.Path) -> None:
    leases = [identity.lease_uid() for _ in range(3)]

    with pytest.raises(SandboxUnavailable, match="no free sandbox uid in 61000..61002"):
        identity.lease_uid()
    for lease in leases:
        lease.release()


def test_a_lock_folder_others_can_write_is_refused(lock_dir: pathlib.Path) -> None:
    lock_dir.mkdir(mode=0o700)
    lock_dir.chmod(0o777)

    with pytest.raises(SandboxUnavailable, match="root-owned folder"):
        identity.lease_uid()


def test_a_uid_below_the_system_range_is_refused(
    lock_dir: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_SANDBOX_UID_BASE", "0")

    with pytest.raises(SandboxUnavailable, match="out of range"):
        identity.lease_uid()


def test_two_pools_run_their_sandboxes_as_two_different_unprivileged_host_uids() -> None:
    first, second = PythonJudge(size=1), PythonJudge(size=1)
    try:
        source = "import os\ndef verify(solution, rng):\n    return os.getuid() == 65534\n"
        for judge in (first, second):
            assert judge.judge(PythonJob(source, "", seed=1, time_limit_s=10)).is_accepted
        (uid_one,), (uid_two,) = first.sandbox_uids(), second.sandbox_uids()

        assert uid_one is not None and uid_two is not None
        assert uid_one != uid_two and min(uid_one, uid_two) >= identity.DEFAULT_UID_BASE
        for judge, uid in ((first, uid_one), (second, uid_two)):
            # Seen from the host: bwrap's own two processes are root, everything else is `uid`.
            seen = {procs.uids_of(pid) for pid, _ in judge.sandbox_processes()}
            assert seen == {(0, 0, 0, 0), (uid,) * 4}
    finally:
        first.close()
        second.close()
