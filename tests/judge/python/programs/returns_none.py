"""Forgets to return."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
# detail: verify returned None


def verify(solution, rng):
    solution.strip() == "42"
