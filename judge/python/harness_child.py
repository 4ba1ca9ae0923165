"""The verdict child's confinement, before it reads any job byte: its fds, rlimits, and seccomp.

Standard library only, bound read-only at /judge/harness_child.py beside the harness.
"""

import ctypes
import os
import resource

CREDS_FD = 1022

_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_DUMPABLE = 4
_PR_SET_NO_NEW_PRIVS = 38
_SYS_SECCOMP = 317
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_TSYNC = 1


def _check(result: int, what: str) -> None:
    if result != 0:
        raise OSError(ctypes.get_errno(), what)


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def prepare_seccomp(program: bytes) -> tuple[SockFprog, ctypes.Array[ctypes.c_char]]:
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    return fprog, buffer


def confine(
    config: dict[str, object],
    fprog: SockFprog,
    creds_fd: int,
    fds: dict[str, int],
    *,
    job_fd: int,
    result_fd: int,
) -> None:
    """New session; fds 0/1/2 = /dev/null / the capped output pipe, the job on ``job_fd``, the
    result on ``result_fd``, every other fd closed; rlimits; not dumpable; seccomp. Then tell
    the host who we are (the credential message). Raises on any failure."""
    os.setsid()
    # A /dev/null of this child alone: a description shared with the zygote's other
    # children would carry its file status flags (O_APPEND, O_NONBLOCK) from verdict to
    # verdict.
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(fds["output_w"], 1)
    os.dup2(fds["output_w"], 2)
    os.dup2(fds["job_r"], job_fd)
    os.dup2(fds["result_w"], result_fd)
    os.dup2(creds_fd, CREDS_FD)
    os.set_inheritable(result_fd, False)
    os.closerange(4, CREDS_FD)
    os.closerange(result_fd + 1, 65536)
    cpu_s = int(config["max_cpu_s"])  # type: ignore[call-overload]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # New fds only below 32 (the job, result and credential fds are already open).
    resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (0, 0))
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    # Queued signals (and POSIX timers, which reserve one) are charged to the sandbox user.
    resource.setrlimit(resource.RLIMIT_SIGPENDING, (16, 16))
    nproc = int(config["max_threads"])  # type: ignore[call-overload]
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")
    _check(_libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0), "PR_SET_DUMPABLE")
    _check(
        _libc.syscall(
            _SYS_SECCOMP,
            _SECCOMP_SET_MODE_FILTER,
            _SECCOMP_FILTER_FLAG_TSYNC,
            ctypes.byref(fprog),
        ),
        "seccomp",
    )
    # Setup is complete: tell the host who we are. The kernel attaches our pid, translated
    # into the host's pid namespace, to this message (SO_PASSCRED is set on the other end).
    # Only now may the host set our CPU limit and move us into the job's cgroup.
    os.write(CREDS_FD, b"c")
    os.close(CREDS_FD)
