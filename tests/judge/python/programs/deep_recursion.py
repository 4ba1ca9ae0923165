"""Unbounded recursion is a runtime error."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: RecursionError


def verify(solution, rng):
    def down(n):
        return down(n + 1)

    return down(0)
