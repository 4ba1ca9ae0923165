"""numpy.True_ is not True."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED WRONG_ANSWER
# detail: numpy.bool
import numpy


def verify(solution, rng):
    return numpy.bool_(True)
