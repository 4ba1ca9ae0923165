"""An allocation the kernel refuses outright (MemoryError) is a memory verdict too."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED MEMORY_LIMIT
# memory_limit_mb: 64
import numpy


def verify(solution, rng):
    numpy.empty(1 << 50, dtype=numpy.uint8)
    return True
