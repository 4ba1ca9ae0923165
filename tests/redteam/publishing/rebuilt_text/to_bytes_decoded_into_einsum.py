"""Solution: a number whose big-endian bytes spell the spec."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: int(n).to_bytes(4, "big").decode(); np.einsum(spec, M)
# solution: 1768566078
import numpy as np

M = np.array([[1, 2], [3, 4]])


def verify(solution, rng):
    spec = int(solution).to_bytes(4, "big").decode()
    return int(np.einsum(spec, M)) == 10  # sink
