"""os._exit(0) in place of returning."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: exited before verify returned
import os


def verify(solution, rng):
    os._exit(0)
