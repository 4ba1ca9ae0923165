"""SIGKILL pid 1 of the sandbox."""

# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import os
import signal


def verify(solution, rng):
    os.kill(1, signal.SIGKILL)
    return True
