"""clone(2) without CLONE_THREAD by raw syscall, at import time."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
PID = libc.syscall(56, 17, 0, 0, 0, 0)  # clone(SIGCHLD, ...): a fork
if PID == 0:
    os._exit(0)
ERRNO = ctypes.get_errno()


def verify(solution, rng):
    return not (PID == -1 and ERRNO == 1)
