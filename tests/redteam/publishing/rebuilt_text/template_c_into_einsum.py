"""Solution: code points (a literal template '{:c}' rebuilds each character)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: "{:c}".format(n); np.einsum(spec, M)
# solution: 105 106 45 62
import numpy as np

M = np.array([[1, 2], [3, 4]])


def verify(solution, rng):
    spec = "".join("{:c}".format(int(t)) for t in solution.split())
    return int(np.einsum(spec, M)) == 10  # sink
