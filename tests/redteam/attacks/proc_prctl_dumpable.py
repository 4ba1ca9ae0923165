"""Make the verdict process dumpable again (a step towards ptrace from a sibling)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
RESULT = libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE 1
ERRNO = ctypes.get_errno()
STILL = libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE


def verify(solution, rng):
    return not (RESULT == -1 and ERRNO == 1 and STILL == 0)
