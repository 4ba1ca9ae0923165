"""Startup self-test: canaries in a real sandbox; a worker refuses jobs if any layer is off."""

from __future__ import annotations

import os

from judge.python.job import PythonJob
from judge.python.runner import PythonJudge, default_judge
from judge.sandbox.bwrap import find_bwrap
from judge.sandbox.errors import SandboxUnavailable
from judge.sandbox.identity import is_root
from judge.verdict import Outcome, Reason

# Runs at module level (before the injection guard is armed) and fails loudly, naming every
# layer that let a canary through. verify() returns True only when every canary was blocked.
CANARY_VERIFIER = r'''
"""Self-test canaries."""
EXPECT_READ_ONLY_DEVICES = {expect_read_only_devices}
import ctypes
import errno
import os
import socket

leaks = []

def expect_blocked(name, action):
    try:
        action()
    except OSError:
        return
    except Exception:
        return
    leaks.append(name)

expect_blocked("tcp socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
def udp_packet():
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", 9))
expect_blocked("udp packet", udp_packet)
expect_blocked("ipv6 socket", lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM))
expect_blocked("unix socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
expect_blocked("socketpair", lambda: socket.socketpair())
expect_blocked("signal parent", lambda: os.kill(os.getppid(), 0))
expect_blocked("signal pid 1", lambda: os.kill(1, 0))
def fork_and_exit():
    if os.fork() == 0:
        os._exit(0)
expect_blocked("fork", fork_and_exit)
expect_blocked("read /etc/passwd", lambda: open("/etc/passwd").read())
expect_blocked("read /proc", lambda: os.listdir("/proc/1"))
WRITABLE_CANDIDATES = (
    "/", "/tmp", "/dev/shm", "/dev", "/judge", "/judge/site", os.path.dirname(os.__file__)
)
for directory in WRITABLE_CANDIDATES:
    path = os.path.join(directory, "canary")
    expect_blocked(f"write {directory}", lambda p=path: open(p, "w").write("x"))
expect_blocked("mkdir /", lambda: os.mkdir("/canary"))

libc = ctypes.CDLL(None, use_errno=True)
# Refused by name in seccomp: each is called with arguments the kernel itself would answer
# with EFAULT/EBADF/EINVAL (or 0), so only the filter's EPERM passes.
BAD_FD, NULL = ctypes.c_long(-1), None
FILTER_CANARIES = (
    ("chmod", 90, NULL, 0), ("fchmod", 91, BAD_FD, 0), ("fchmodat", 268, BAD_FD, NULL, 0),
    ("fchmodat2", 452, BAD_FD, NULL, 0, 0), ("chown", 92, NULL, 0, 0),
    ("fchown", 93, BAD_FD, 0, 0), ("lchown", 94, NULL, 0, 0),
    ("fchownat", 260, BAD_FD, NULL, 0, 0, 0), ("utime", 132, NULL, NULL),
    ("utimes", 235, NULL, NULL), ("futimesat", 261, BAD_FD, NULL, NULL),
    ("utimensat", 280, BAD_FD, NULL, NULL, 0), ("syncfs", 306, BAD_FD), ("fsync", 74, BAD_FD),
    ("fdatasync", 75, BAD_FD), ("sync_file_range", 277, BAD_FD, 0, 0, 0), ("msync", 26, 1, 1, 0),
    ("inotify_init1", 294, ctypes.c_long(0x7FFFFFFF)), ("inotify_add_watch", 254, BAD_FD, NULL, 0),
    ("inotify_rm_watch", 255, BAD_FD, 0), ("fanotify_init", 300, ctypes.c_long(0x7FFFFFFF), 0),
    ("fanotify_mark", 301, BAD_FD, 0, 0, BAD_FD, NULL), ("statmount", 457, NULL, NULL, 0, 0),
    ("listmount", 458, NULL, NULL, 0, 0), ("cachestat", 451, BAD_FD, NULL, NULL, 0),
    ("mincore", 27, 1, 1, NULL), ("membarrier", 324, ctypes.c_long(0x7FFFFFFF), 0, 0),
    ("timer_create", 222, ctypes.c_long(-1), NULL, NULL), ("timerfd_create", 283, BAD_FD, 0),
    ("pipe", 22, NULL), ("pipe2", 293, NULL, 0),
)  # fmt: skip
for name, number, *arguments in FILTER_CANARIES:
    if libc.syscall(number, *arguments) != -1 or ctypes.get_errno() != errno.EPERM:
        leaks.append(name)
# sync() cannot fail in the kernel: only the filter makes it return -1.
if libc.syscall(162) != -1 or ctypes.get_errno() != errno.EPERM:
    leaks.append("sync")
# A syscall the allowlist does not know answers ENOSYS (sysinfo: host load and memory).
if libc.syscall(99, NULL) != -1 or ctypes.get_errno() != errno.ENOSYS:
    leaks.append("sysinfo (default deny)")
import resource
if resource.getrlimit(resource.RLIMIT_SIGPENDING)[1] > 16:
    leaks.append("RLIMIT_SIGPENDING")
if resource.getrlimit(resource.RLIMIT_NOFILE)[1] > 32:
    leaks.append("RLIMIT_NOFILE")
if EXPECT_READ_ONLY_DEVICES:
    expect_blocked("chmod /dev/null", lambda: os.chmod("/dev/null", 0o666))
# The host's disks are not a verdict's business: statfs/fstatfs answer ENOSYS.
statfs_buffer = ctypes.create_string_buffer(256)
if libc.syscall(137, b"/", statfs_buffer) != -1 or ctypes.get_errno() != errno.ENOSYS:
    leaks.append("statfs")
if libc.syscall(138, 0, statfs_buffer) != -1 or ctypes.get_errno() != errno.ENOSYS:
    leaks.append("fstatfs")
# Renaming itself in the host's ps: refused.
if libc.prctl(15, b"canary", 0, 0, 0) != -1 or ctypes.get_errno() != errno.EPERM:
    leaks.append("PR_SET_NAME")
# File status flags are read-only (F_GETFL), and fd 0 is this child's own /dev/null.
import fcntl
if fcntl.fcntl(0, fcntl.F_GETFL) & os.O_APPEND:
    leaks.append("fd 0 inherited O_APPEND")
expect_blocked("F_SETFL", lambda: fcntl.fcntl(0, fcntl.F_SETFL, os.O_APPEND))
# The entropy nodes are private read-only files: readable, never written to the host's pool.
for device in ("/dev/random", "/dev/urandom"):
    expect_blocked(f"write {device}", lambda d=device: open(d, "wb").write(b"x"))
    with open(device, "rb") as handle:
        if len(handle.read(16)) != 16:
            leaks.append(f"read {device}")
# execve(NULL, ...): EPERM when seccomp refuses it, EFAULT when the kernel gets to look.
if libc.syscall(59, None, None, None) != -1 or ctypes.get_errno() != errno.EPERM:
    leaks.append("exec")
if libc.prctl(21, 0, 0, 0, 0) != 2:  # PR_GET_SECCOMP: 2 = filter mode
    leaks.append("seccomp not enforced")
class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]
class _Data(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]
header = _Header(0x20080522, 0)
data = (_Data * 2)()
if libc.syscall(125, ctypes.byref(header), data) != 0:  # capget
    leaks.append("capget failed")
elif any(d.effective or d.permitted for d in data):
    leaks.append("capabilities are not zero")
if os.getuid() == 0 or os.geteuid() == 0:
    leaks.append("running as root inside the sandbox")
if libc.prctl(3, 0, 0, 0, 0) != 0:  # PR_GET_DUMPABLE
    leaks.append("process is dumpable")
allowed_env = {
    "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTHONHASHSEED", "LANG",
    "LC_ALL", "PATH", "HOME", "PWD",
}
if set(os.environ) - allowed_env:
    leaks.append("environment not scrubbed")
for forbidden in ("django", "celery", "judge", "pip"):
    try:
        __import__(forbidden)
        leaks.append(f"import {forbidden}")
    except ImportError:
        pass

def verify(solution, rng):
    if leaks:
        raise RuntimeError("CANARIES ESCAPED: " + ", ".join(leaks))
    return solution == "canary"
'''

MEMORY_CANARY = (
    "def verify(solution, rng):\n"
    "    blocks = [bytearray(1 << 20) for _ in range(10_000)]\n"
    "    return True\n"
)
TIME_CANARY = "def verify(solution, rng):\n    while True:\n        pass\n"


def run_selftest(judge: PythonJudge | None = None) -> None:
    """Run the canaries through the real sandbox; raise SandboxUnavailable naming what leaked."""
    find_bwrap()
    pool = judge or default_judge()
    pooled = is_root()
    if not pooled and os.environ.get("JUDGE_SANDBOX_ALLOW_NO_UID_POOL") != "1":
        raise SandboxUnavailable(
            "PYTHON JUDGE SELF-TEST FAILED: the worker is not root, so its sandboxes cannot run "
            "as pool uids (set JUDGE_SANDBOX_ALLOW_NO_UID_POOL=1 to run them as the worker's uid)"
        )
    canary = CANARY_VERIFIER.replace("{expect_read_only_devices}", str(pooled))
    verdict = pool.judge(PythonJob(canary, "canary", seed=0, time_limit_s=20, memory_limit_mb=256))
    if verdict.verdict is not Outcome.ACCEPTED:
        raise SandboxUnavailable(
            "PYTHON JUDGE SELF-TEST FAILED, refusing to judge: "
            f"{verdict.verdict} {verdict.reason}: {verdict.detail}"
        )
    memory = pool.judge(PythonJob(MEMORY_CANARY, "x", seed=0, time_limit_s=20, memory_limit_mb=64))
    if memory.reason is not Reason.MEMORY_LIMIT:
        raise SandboxUnavailable(
            f"PYTHON JUDGE SELF-TEST FAILED: a memory bomb gave {memory.verdict} {memory.reason} "
            f"({memory.detail}), not MEMORY_LIMIT"
        )
    spin = pool.judge(PythonJob(TIME_CANARY, "x", seed=0, time_limit_s=0.3, memory_limit_mb=64))
    if spin.reason is not Reason.TIME_LIMIT:
        raise SandboxUnavailable(
            f"PYTHON JUDGE SELF-TEST FAILED: a spinning verifier gave {spin.verdict} "
            f"{spin.reason}, not TIME_LIMIT"
        )
    uids = pool.sandbox_uids()
    if pooled and (not uids or any(uid is None or uid == 0 for uid in uids)):
        raise SandboxUnavailable(
            f"PYTHON JUDGE SELF-TEST FAILED: sandboxes do not run as pool uids ({uids})"
        )
    if os.environ.get("JUDGE_PYTHON_ALLOW_NO_CGROUP") != "1" and not pool.has_cgroups():
        raise SandboxUnavailable(
            "PYTHON JUDGE SELF-TEST FAILED: no cgroup memory+pids controller is usable "
            "(set JUDGE_PYTHON_ALLOW_NO_CGROUP=1 to accept the rlimit fallback)"
        )
