"""Solution: code points (chr kept as a value, then called)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: convert = chr; convert(int(t)); np.einsum
# solution: 105 106 45 62
import numpy as np

M = np.array([[1, 2], [3, 4]])


def verify(solution, rng):
    convert = chr
    spec = "".join(convert(int(t)) for t in solution.split())
    return int(np.einsum(spec, M)) == 10  # sink
