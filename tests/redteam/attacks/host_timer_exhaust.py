"""Create POSIX timers until the kernel says EAGAIN (they were charged to host root)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: timer_create refused: errno 1
import ctypes

libc = ctypes.CDLL(None, use_errno=True)


def attack():
    created = 0
    timer = ctypes.c_void_p()
    for _ in range(500):
        if libc.syscall(222, 1, None, ctypes.byref(timer)) != 0:  # timer_create(MONOTONIC)
            break
        created += 1
    if created:
        return True
    raise OSError(f"timer_create refused: errno {ctypes.get_errno()}")


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
