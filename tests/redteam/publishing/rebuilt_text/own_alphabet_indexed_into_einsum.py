"""Solution: positions in the verifier's own alphabet."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: LETTERS[int(t)]; np.einsum(spec, M)
# solution: 8 9 26 27
import numpy as np

M = np.array([[1, 2], [3, 4]])
LETTERS = "abcdefghijklmnopqrstuvwxyz->"


def verify(solution, rng):
    spec = "".join(LETTERS[int(t)] for t in solution.split())
    return int(np.einsum(spec, M)) == 10  # sink
