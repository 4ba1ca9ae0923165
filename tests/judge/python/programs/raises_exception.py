"""Raises on bad input."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: ValueError: invalid literal for int() with base 10: 'abc'
# solution: abc


def verify(solution, rng):
    return int(solution) == 3
