"""Verdicts do not talk to each other or to the host (issue 25 §4), through the real sandbox.

Each attack is a verifier run by the real judge: the verdict says what the sandbox let
through, and the host side is checked from outside (kcmp on the live processes).
"""

from __future__ import annotations

import ctypes
import os
import pathlib
import sys

import pytest

from judge.python import PythonJob, PythonJudge
from judge.sandbox import seccomp
from judge.verdict import Outcome, Reason

_libc = ctypes.CDLL(None, use_errno=True)
SYS_KCMP, KCMP_FILE = 312, 0


def _judge(judge: PythonJudge, source: str, solution: str = "x"):
    return judge.judge(PythonJob(source, solution, seed=1, time_limit_s=10, memory_limit_mb=256))


def _accepted(judge: PythonJudge, source: str) -> None:
    verdict = _judge(judge, source)
    assert verdict.verdict is Outcome.ACCEPTED, (verdict.reason, verdict.detail)


def test_f_setfl_is_refused_and_f_getfl_allowed(python_judge: PythonJudge) -> None:
    _accepted(
        python_judge,
        "import fcntl, os\n"
        "def verify(solution, rng):\n"
        "    try:\n"
        "        fcntl.fcntl(0, fcntl.F_SETFL, os.O_APPEND)\n"
        "    except PermissionError:\n"
        "        pass\n"
        "    else:\n"
        "        return False\n"
        "    return not fcntl.fcntl(0, fcntl.F_GETFL) & os.O_APPEND\n",
    )
    # And the next verdict sees no flag whatever the previous one tried.
    _accepted(
        python_judge,
        "import fcntl, os\n"
        "def verify(solution, rng):\n"
        "    return not fcntl.fcntl(0, fcntl.F_GETFL) & (os.O_APPEND | os.O_NONBLOCK)\n",
    )


def _same_file(pid_a: int, fd_a: int, pid_b: int, fd_b: int) -> bool:
    result = _libc.syscall(SYS_KCMP, pid_a, pid_b, KCMP_FILE, fd_a, fd_b)
    assert result != -1, os.strerror(ctypes.get_errno())
    return result == 0


def test_each_verdict_child_has_its_own_dev_null_description(python_judge: PythonJudge) -> None:
    """kcmp(KCMP_FILE): the idle child's fd 0 is no open file description of its zygote's,
    so nothing (flags, offset) of it is shared with the zygote's other children."""
    if os.geteuid() != 0:
        pytest.fail("kcmp on the sandbox's processes needs the test to run as root")
    python_judge.warm_up()
    zygote = python_judge._all[0]  # noqa: SLF001 -- the test looks inside on purpose
    zygote.prepare()
    child = zygote._child  # noqa: SLF001
    assert child is not None
    stat = pathlib.Path(f"/proc/{child.host_pid}/stat").read_text()
    zygote_pid = int(stat[stat.rfind(")") + 2 :].split()[1])
    zygote_fds = [int(fd) for fd in os.listdir(f"/proc/{zygote_pid}/fd")]
    assert zygote_fds
    assert os.readlink(f"/proc/{child.host_pid}/fd/0") == "/dev/null"
    shared = [fd for fd in zygote_fds if _same_file(child.host_pid, 0, zygote_pid, fd)]
    assert shared == [], f"the child's fd 0 is the zygote's fd {shared}"


def test_statfs_and_fstatfs_answer_enosys(python_judge: PythonJudge) -> None:
    _accepted(
        python_judge,
        "import errno, os\n"
        "def verify(solution, rng):\n"
        "    for call in (lambda: os.statvfs('/'), lambda: os.fstatvfs(0)):\n"
        "        try:\n"
        "            call()\n"
        "        except OSError as exc:\n"
        "            if exc.errno != errno.ENOSYS:\n"
        "                return False\n"
        "        else:\n"
        "            return False\n"
        "    return True\n",
    )


def test_pr_set_name_is_refused(python_judge: PythonJudge) -> None:
    _accepted(
        python_judge,
        # At module level: ctypes is the verifier's own code there (the guard arms for verify).
        "import ctypes, errno\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "name = ctypes.create_string_buffer(16)\n"
        "libc.prctl(16, name, 0, 0, 0)\n"  # PR_GET_NAME still works
        "REFUSED = libc.prctl(15, b'innocent', 0, 0, 0) == -1 and ctypes.get_errno() == 1\n"
        "def verify(solution, rng):\n"
        "    return REFUSED and name.value != b''\n",
    )


def test_the_entropy_nodes_are_private_read_only_files(python_judge: PythonJudge) -> None:
    _accepted(
        python_judge,
        "import os, stat\n"
        "def verify(solution, rng):\n"
        "    for device in ('/dev/random', '/dev/urandom'):\n"
        "        if stat.S_ISCHR(os.stat(device).st_mode):\n"
        "            return False\n"  # the host's node would be a character device
        "        for mode in ('wb', 'ab', 'r+b'):\n"
        "            try:\n"
        "                open(device, mode).write(b'x' * 64)\n"
        "            except OSError:\n"
        "                continue\n"
        "            return False\n"
        "        with open(device, 'rb') as handle:\n"
        "            if len(set(handle.read(4096))) < 200:\n"
        "                return False\n"  # not random bytes
        "    return True\n",
    )


def test_host_paths_are_redacted_before_the_detail_is_cut(python_judge: PythonJudge) -> None:
    host = os.path.realpath(sys.base_prefix)
    assert len(host) > 4
    for pad in range(250, 300, 7):
        verdict = _judge(
            python_judge,
            "import os\n"
            "def verify(solution, rng):\n"
            f"    raise ValueError('x' * {pad} + os.__file__)\n",
        )
        assert verdict.reason is Reason.RUNTIME_ERROR
        assert host[:4] not in verdict.detail, (pad, verdict.detail)
        assert "pyenv" not in verdict.detail and ".venv" not in verdict.detail


def test_the_filter_allows_no_f_setfl_pr_set_name_or_statfs() -> None:
    arguments = {number: values for number, _, values in seccomp.ALLOWED_ARGUMENTS}
    assert seccomp.F_SETFL not in arguments[seccomp.SYS_FCNTL]
    assert seccomp.F_GETFL in arguments[seccomp.SYS_FCNTL]
    assert seccomp.PR_SET_NAME not in arguments[seccomp.SYS_PRCTL]
    assert not {"statfs", "fstatfs"} & set(seccomp.ALLOWED_SYSCALLS)


def test_the_entropy_nodes_are_bound_from_private_data_not_the_hosts_devices() -> None:
    from judge.sandbox.bwrap import ENTROPY_DEVICES, build_argv
    from judge.sandbox.rootfs import build_rootfs

    argv = build_argv(build_rootfs(), 7, None, (11, 12))
    options = argv[: argv.index("--")]
    data = [
        (options[i + 1], options[i + 2]) for i, a in enumerate(options) if a == "--ro-bind-data"
    ]
    devices = [options[i + 1] for i, a in enumerate(options) if a == "--dev-bind"]

    assert data == list(zip(("11", "12"), ENTROPY_DEVICES, strict=True))
    assert devices == ["/dev/null", "/dev/zero"]


PID = "import os\ndef verify(solution, rng):\n    raise ValueError(os.getpid())\n"
THREADS = (
    "import threading\n"
    "def verify(solution, rng):\n"
    "    for _ in range(40):\n"
    "        thread = threading.Thread(target=int)\n"
    "        thread.start()\n"
    "        thread.join()\n"
    "    return True\n"
)


def _pids_after(first_source: str) -> tuple[list[int], list[int]]:
    """The pids the two verdicts after ``first_source`` see, in a fresh pool of one zygote,
    and the pids of a thread-free history in another fresh pool."""
    quiet, noisy = PythonJudge(size=1), PythonJudge(size=1)
    try:
        baseline = [int(_judge(quiet, PID).detail.split()[-1]) for _ in range(3)]
        assert _judge(noisy, first_source).verdict is Outcome.ACCEPTED
        after = [int(_judge(noisy, PID).detail.split()[-1]) for _ in range(2)]
    finally:
        quiet.close()
        noisy.close()
    return baseline, after


def test_a_verdicts_threads_do_not_show_in_a_later_verdicts_pid() -> None:
    """Pids are one counter per namespace: 40 threads of verdict A moved the pid of every
    later verdict of the zygote by 40 (a channel of any width, one count per thread). Now the
    zygote whose counter moved is replaced before another verdict runs in it."""
    baseline, after = _pids_after(THREADS)

    assert baseline == [baseline[0], baseline[0] + 1, baseline[0] + 2]
    assert set(after) <= set(baseline), (baseline, after)


PIPES = (
    "import os\n"
    "def verify(solution, rng):\n"
    "    made = 0\n"
    "    try:\n"
    "        for _ in range(200_000):\n"
    "            for end in os.pipe():\n"
    "                os.close(end)\n"
    "            made += 1\n"
    "    except OSError as exc:\n"
    "        raise ValueError(f'{made} pipes, then {exc.errno}') from None\n"
    "    return True\n"
)
INODE = "import os\ndef verify(solution, rng):\n    raise ValueError(os.fstat(1).st_ino)\n"


def test_a_verdict_cannot_make_pipes_whose_inodes_a_later_verdict_reads(
    python_judge: PythonJudge,
) -> None:
    """Pipe inodes come from one kernel-wide counter: 200 000 pipes made by verdict A moved the
    inode of a later verdict's own output pipe by tens of thousands (measured 44 450 against
    5-8 for a quiet history). A verdict can make no pipe now; fstat of its own fds still works."""
    verdict = _judge(python_judge, PIPES)

    assert verdict.reason is Reason.RUNTIME_ERROR, (verdict.verdict, verdict.detail)
    assert verdict.detail == "ValueError: 0 pipes, then 1"  # EPERM at the first pipe
    assert int(_judge(python_judge, INODE).detail.split()[-1]) > 0


# A thread made by glibc's own clone() wrapper, running libc's getpid and exiting: the flags
# are pthread_create's plus CLONE_PIDFD, which hands back a pidfd of the thread.
PIDFD_THREAD = """
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.clone.restype = ctypes.c_int
libc.clone.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_int] + [ctypes.c_void_p] * 2
STACK = ctypes.create_string_buffer(1 << 16)
PIDFD = ctypes.c_int(-1)
FLAGS = 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x1000
TID = libc.clone(
    ctypes.cast(libc.getpid, ctypes.c_void_p), ctypes.addressof(STACK) + (1 << 16) - 64,
    FLAGS, None, ctypes.byref(PIDFD),
)
ERRNO = ctypes.get_errno()
time.sleep(0.05)
INODE = os.fstat(PIDFD.value).st_ino if PIDFD.value >= 0 else None

def verify(solution, rng):
    raise ValueError(f"{TID} {ERRNO} {INODE}")
"""


def test_a_thread_comes_with_no_pidfd_whose_inode_counts_the_hosts_pids(
    python_judge: PythonJudge,
) -> None:
    """A pidfd's inode number is the pid's number in one kernel-wide counter (pidfs): with
    ``clone(CLONE_THREAD | CLONE_PIDFD)`` a verdict read how many processes and threads the
    whole host had started, which any verdict moves by starting threads. clone is allowed
    with exactly pthread_create's flags now; threads still work (``THREADS`` above)."""
    verdict = _judge(python_judge, PIDFD_THREAD)

    assert verdict.detail == "ValueError: -1 1 None", verdict.detail  # EPERM, no pidfd
    assert _judge(python_judge, THREADS).verdict is Outcome.ACCEPTED
