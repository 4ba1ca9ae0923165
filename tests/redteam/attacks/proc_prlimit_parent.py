"""Starve the zygote: lower its open-file limit with prlimit64, at import time."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import ctypes
import os


class Limit(ctypes.Structure):
    _fields_ = [("soft", ctypes.c_uint64), ("hard", ctypes.c_uint64)]


libc = ctypes.CDLL(None, use_errno=True)
new = Limit(3, 3)
RESULT = libc.syscall(302, os.getppid(), 7, ctypes.byref(new), None)  # RLIMIT_NOFILE
ERRNO = ctypes.get_errno()
SELF = libc.syscall(302, 0, 7, None, ctypes.byref(Limit()))  # reading our own limit still works


def verify(solution, rng):
    # Contained iff acting on the parent failed with EPERM while acting on ourselves works.
    return not (RESULT == -1 and ERRNO == 1 and SELF == 0)
