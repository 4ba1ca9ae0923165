"""Exhaust inotify instances and watches (they were charged to host root: its own failed)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: inotify refused: errno 1
import ctypes

libc = ctypes.CDLL(None, use_errno=True)


def attack():
    opened = 0
    for _ in range(200):
        fd = libc.inotify_init1(0)
        if fd < 0:
            break
        opened += 1
        libc.inotify_add_watch(fd, b"/", 0xFFF)
    if opened:
        return True
    raise OSError(f"inotify refused: errno {ctypes.get_errno()}")


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
