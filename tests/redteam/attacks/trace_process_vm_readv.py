"""Read the zygote's memory with process_vm_readv, at import time."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import ctypes
import os


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


libc = ctypes.CDLL(None, use_errno=True)
buffer = ctypes.create_string_buffer(64)
local = IoVec(ctypes.cast(buffer, ctypes.c_void_p), 64)
remote = IoVec(ctypes.cast(buffer, ctypes.c_void_p), 64)  # same address: zygote layout
RESULT = libc.syscall(310, os.getppid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
ERRNO = ctypes.get_errno()


def verify(solution, rng):
    return not (RESULT == -1 and ERRNO == 1)
