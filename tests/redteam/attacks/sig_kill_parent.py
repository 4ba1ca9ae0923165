"""SIGKILL the zygote (the verdict child's parent)."""

# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import os
import signal


def verify(solution, rng):
    os.kill(os.getppid(), signal.SIGKILL)
    return True
