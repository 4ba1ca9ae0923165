"""Flood stderr."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: printed more than 1 MiB
import os


def verify(solution, rng):
    chunk = b"e" * 65536
    while True:
        os.write(2, chunk)
