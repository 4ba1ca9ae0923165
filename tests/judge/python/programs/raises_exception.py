"""Raises on bad input."""
# expect: REJECTED RUNTIME_ERROR
# detail: ValueError: invalid literal for int() with base 10: 'abc'
# solution: abc


def verify(solution, rng):
    return int(solution) == 3
