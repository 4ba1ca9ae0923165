"""Write a well-formed acceptance frame to every fd (the result pipe included), then exit 0."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: forged the judge's result channel
import os
import struct


def verify(solution, rng):
    frame = struct.pack(">I", 1) + b"A"
    for fd in range(65536):
        try:
            os.write(fd, frame)
        except OSError:
            pass
    os._exit(0)
