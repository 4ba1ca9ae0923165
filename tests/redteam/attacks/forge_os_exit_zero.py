"""os._exit(0) in place of returning."""

# expect: REJECTED RUNTIME_ERROR
# detail: exited before verify returned
import os


def verify(solution, rng):
    os._exit(0)
