"""A syscall nobody listed (sysinfo: the host's load and memory) answers ENOSYS: default deny."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: unlisted syscalls refused: [38, 38, 38]
import ctypes

libc = ctypes.CDLL(None, use_errno=True)


def attack():
    buffer = ctypes.create_string_buffer(512)
    errors = []
    for number, args in ((99, (buffer,)), (140, (0, 0)), (61, (-1, None, 0, None))):
        if libc.syscall(number, *args) >= 0:  # sysinfo, getpriority, wait4
            return True
        errors.append(ctypes.get_errno())
    raise OSError(f"unlisted syscalls refused: {errors}")


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
