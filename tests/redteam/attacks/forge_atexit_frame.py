"""An atexit handler that writes an acceptance after a rejection."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
import atexit
import os
import struct


def forge():
    os.write(1023, struct.pack(">I", 1) + b"A")
    os._exit(0)


def verify(solution, rng):
    atexit.register(forge)
    return False
