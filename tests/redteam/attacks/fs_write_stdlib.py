"""Overwrite a stdlib module for the next verdicts."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Permission denied
import os


def verify(solution, rng):
    open(os.__file__, "a").write("# pwned")
    return True
