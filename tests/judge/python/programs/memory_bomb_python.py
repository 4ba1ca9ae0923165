"""Allocates past its budget with Python objects."""
# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED MEMORY_LIMIT
# memory_limit_mb: 64


def verify(solution, rng):
    blocks = [bytearray(1 << 20) for _ in range(1000)]
    return len(blocks) > 0
