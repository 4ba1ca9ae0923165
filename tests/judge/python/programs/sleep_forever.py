"""Sleeps forever: only the wall clock catches it."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED TIME_LIMIT
# time_limit_s: 0.5
import time


def verify(solution, rng):
    time.sleep(3600)
