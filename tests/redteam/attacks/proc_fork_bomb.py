"""A fork bomb."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import os


def verify(solution, rng):
    while True:
        os.fork()
