"""numpy.True_ is not the object True."""
# expect: REJECTED WRONG_ANSWER
# detail: numpy.bool
import numpy


def verify(solution, rng):
    return numpy.True_
