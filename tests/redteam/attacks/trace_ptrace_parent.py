"""ptrace-attach the zygote, at import time."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
RESULT = libc.syscall(101, 16, os.getppid(), 0, 0)  # PTRACE_ATTACH
ERRNO = ctypes.get_errno()


def verify(solution, rng):
    return not (RESULT == -1 and ERRNO == 1)
