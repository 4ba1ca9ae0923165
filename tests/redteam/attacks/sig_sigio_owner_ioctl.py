"""Signal by proxy through the ioctl spelling: FIOSETOWN names the zygote as SIGIO owner."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import fcntl
import os
import struct

FIOSETOWN = 0x8901


def verify(solution, rng):
    fcntl.ioctl(1, FIOSETOWN, struct.pack("i", os.getppid()))
    return True
