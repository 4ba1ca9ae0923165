"""Probe the page cache of a shared stdlib file (a bit passed between verdicts)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: page-cache probes refused: [1, 1]
import ctypes
import mmap
import os

libc = ctypes.CDLL(None, use_errno=True)


def attack():
    fd = os.open(os.__file__, os.O_RDONLY)
    errors = []
    # cachestat(fd, &range{0, 0}, &stat, 0)
    cache_range = (ctypes.c_uint64 * 2)(0, 0)
    stat = (ctypes.c_uint64 * 5)()
    if libc.syscall(451, fd, cache_range, stat, 0) == 0:
        return True
    errors.append(ctypes.get_errno())
    mapped = mmap.mmap(-1, 4096)
    page = ctypes.c_void_p(ctypes.addressof(ctypes.c_char.from_buffer(mapped)))
    vec = ctypes.create_string_buffer(1)
    if libc.syscall(27, page, 4096, vec) == 0:  # mincore
        return True
    errors.append(ctypes.get_errno())
    raise OSError(f"page-cache probes refused: {errors}")


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
