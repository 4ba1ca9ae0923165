"""Forge an acceptance frame carrying a guessed token on the known result fd, then exit 0."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: forged the judge's result channel
import os
import struct


def verify(solution, rng):
    payload = b"A" + b"0" * 32
    os.write(1023, struct.pack(">I", len(payload)) + payload)
    os._exit(0)
