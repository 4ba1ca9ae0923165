"""List /proc to find other processes and sandboxes."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: FileNotFoundError
import os


def verify(solution, rng):
    return len(os.listdir("/proc")) > 0
