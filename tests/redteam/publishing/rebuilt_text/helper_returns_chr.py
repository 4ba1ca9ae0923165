"""Solution: code points (an own helper converts, its parameter is derived)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: def letter(n): return chr(n); letter(int(t)); np.einsum
# solution: 105 106 45 62
import numpy as np

M = np.array([[1, 2], [3, 4]])


def letter(n):
    return chr(n)


def verify(solution, rng):
    spec = "".join(letter(int(t)) for t in solution.split())
    return int(np.einsum(spec, M)) == 10  # sink
