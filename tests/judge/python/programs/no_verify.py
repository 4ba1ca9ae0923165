"""Defines no verify."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: verifier defines no callable verify(solution, rng)


def check(solution, rng):
    return True
