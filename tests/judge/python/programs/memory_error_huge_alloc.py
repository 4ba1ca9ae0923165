"""An allocation the kernel refuses outright (MemoryError) is a memory verdict too."""
# expect: REJECTED MEMORY_LIMIT
# memory_limit_mb: 64
import numpy


def verify(solution, rng):
    numpy.empty(1 << 50, dtype=numpy.uint8)
    return True
