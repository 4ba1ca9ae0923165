"""A file lock on a shared read-only file (a channel between verdicts)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import fcntl
import os


def verify(solution, rng):
    with open(os.__file__) as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
    return True
