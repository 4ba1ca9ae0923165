"""verify takes one parameter."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: TypeError


def verify(solution):
    return True
