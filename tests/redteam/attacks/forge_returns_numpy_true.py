"""numpy.True_ is not True."""

# expect: REJECTED WRONG_ANSWER
# detail: numpy.bool
import numpy


def verify(solution, rng):
    return numpy.bool_(True)
