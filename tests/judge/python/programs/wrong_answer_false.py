"""The answer is the integer 42."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
# detail: verify returned False
# solution: 41


def verify(solution, rng):
    return solution.strip() == "42"
