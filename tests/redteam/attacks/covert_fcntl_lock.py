"""A POSIX record lock (fcntl F_SETLK)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import fcntl
import os


def verify(solution, rng):
    with open(os.__file__) as handle:
        fcntl.lockf(handle, fcntl.LOCK_SH)
    return True
