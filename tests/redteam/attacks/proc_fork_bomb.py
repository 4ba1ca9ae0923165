"""A fork bomb."""

# expect: REJECTED RUNTIME_ERROR
# detail: Operation not permitted
import os


def verify(solution, rng):
    while True:
        os.fork()
