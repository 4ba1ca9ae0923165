"""Solutions are UTF-8 text."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: ACCEPTED
# solution: \u00e9\u221e


def verify(solution, rng):
    return solution == "\u00e9\u221e"
