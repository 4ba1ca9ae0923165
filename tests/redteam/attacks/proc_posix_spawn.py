"""posix_spawn (vfork/clone under the hood)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
import os
import sys


def verify(solution, rng):
    os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], {})
    return True
