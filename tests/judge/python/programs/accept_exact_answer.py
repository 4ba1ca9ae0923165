"""The answer is the integer 42."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: ACCEPTED
# solution: 42\n


def verify(solution, rng):
    return solution.strip() == "42"
