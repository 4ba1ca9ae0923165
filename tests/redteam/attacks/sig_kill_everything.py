"""kill(-1): every process the sandbox's user may signal."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import os
import signal


def verify(solution, rng):
    os.kill(-1, signal.SIGKILL)
    return True
