"""SIGKILL the zygote (the verdict child's parent)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import os
import signal


def verify(solution, rng):
    os.kill(os.getppid(), signal.SIGKILL)
    return True
