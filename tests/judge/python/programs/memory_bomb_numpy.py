"""Allocates past its budget with numpy."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED MEMORY_LIMIT
# memory_limit_mb: 64
import numpy


def verify(solution, rng):
    arrays = [numpy.ones(1 << 20) for _ in range(100)]
    return len(arrays) > 0
