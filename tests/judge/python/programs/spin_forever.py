"""Spins forever."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED TIME_LIMIT
# time_limit_s: 0.5


def verify(solution, rng):
    while True:
        pass
