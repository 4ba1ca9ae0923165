"""Prints far more than the output cap."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: printed more than 1 MiB


def verify(solution, rng):
    while True:
        print("x" * 65536, flush=True)
