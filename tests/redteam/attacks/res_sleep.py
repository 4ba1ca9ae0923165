"""Sleep past the wall clock."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED TIME_LIMIT
# time_limit_s: 0.5
import time


def verify(solution, rng):
    time.sleep(60)
    return True
