"""membarrier interrupts every CPU of the host (and probes which ones run our threads)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: membarrier refused: errno 1
import ctypes

libc = ctypes.CDLL(None, use_errno=True)


def attack():
    if libc.syscall(324, 0, 0, 0) >= 0:  # MEMBARRIER_CMD_QUERY
        return True
    raise OSError(f"membarrier refused: errno {ctypes.get_errno()}")


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
