"""os._exit(0) before returning: no verdict frame, so a rejection."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: exited before verify returned
import os


def verify(solution, rng):
    os._exit(0)
