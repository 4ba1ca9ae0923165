"""socket(2) by raw syscall number through ctypes, at import time."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
FD = libc.syscall(41, 2, 1, 0)  # socket(AF_INET, SOCK_STREAM, 0)
ERRNO = ctypes.get_errno()


def verify(solution, rng):
    # Contained iff the syscall failed with EPERM.
    return not (FD == -1 and ERRNO == 1)
