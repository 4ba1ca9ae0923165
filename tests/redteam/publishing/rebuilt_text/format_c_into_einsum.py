"""Solution: code points (format(n, 'c') rebuilds each character)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: format(int(t), "c"); np.einsum(spec, M)
# solution: 105 106 45 62
import numpy as np

M = np.array([[1, 2], [3, 4]])


def verify(solution, rng):
    spec = "".join(format(int(t), "c") for t in solution.split())
    return int(np.einsum(spec, M)) == 10  # sink
