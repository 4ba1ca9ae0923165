"""A numpy array touched page by page past the budget."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED MEMORY_LIMIT
# memory_limit_mb: 64
import numpy


def verify(solution, rng):
    array = numpy.zeros(200 * 1024 * 1024, dtype=numpy.uint8)
    array[::4096] = 1
    return True
