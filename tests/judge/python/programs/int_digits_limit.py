"""Python's 4300-digit int() limit stays on: a huge number is a runtime error."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: ValueError


def verify(solution, rng):
    return int("7" * 60000) > 0
