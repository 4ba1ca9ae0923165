"""Returns 1, which is not True."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
# detail: verify returned an int, not True


def verify(solution, rng):
    return 1
