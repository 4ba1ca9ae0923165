"""The string "True" is not True."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
# detail: verify returned a str, not True


def verify(solution, rng):
    return "True"
