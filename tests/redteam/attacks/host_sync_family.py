"""sync() flushed the host's dirty pages; syncfs/fsync/fdatasync do the same on one fs."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: sync family refused: [1, 1, 1, 1]
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)


def attack():
    fd = os.open(os.__file__, os.O_RDONLY)
    errors = []
    for number, args in ((162, ()), (306, (fd,)), (74, (fd,)), (75, (fd,))):
        if libc.syscall(number, *args) == 0:
            return True
        errors.append(ctypes.get_errno())
    raise OSError(f"sync family refused: {errors}")


# At import time, before the guard is armed (ctypes is refused inside verify): only the kernel
# and the seccomp filter stand between this and the host.
try:
    OUTCOME = attack()
except Exception as error:
    OUTCOME = error


def verify(solution, rng):
    if isinstance(OUTCOME, Exception):
        raise OUTCOME
    return OUTCOME
