"""Solution: code points (bytes(...).decode() rebuilds the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: bytes(codes).decode(); np.einsum(spec, M)
# solution: 105 106 45 62
import numpy as np

M = np.array([[1, 2], [3, 4]])


def verify(solution, rng):
    spec = bytes([int(t) for t in solution.split()]).decode()
    return int(np.einsum(spec, M)) == 10  # sink
