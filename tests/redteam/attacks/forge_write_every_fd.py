"""Write an acceptance frame to every file descriptor, then reject."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: result channel
import os
import struct

FRAME = struct.pack(">I", 1) + b"A"


def verify(solution, rng):
    for fd in range(0, 2048):
        try:
            os.write(fd, FRAME)
        except OSError:
            pass
    return False
