"""Replace the verifier with another program."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import os
import sys


def verify(solution, rng):
    os.execv(sys.executable, [sys.executable, "-c", "print(1)"])
