"""Solution: four code points ('%c' formatting rebuilds the spec)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: "%c%c->%c" % codes; np.einsum(spec, M)
# solution: 105 105 105
import numpy as np

M = np.array([[1, 2], [3, 4]])


def verify(solution, rng):
    a, b, c = (int(t) for t in solution.split())
    spec = "%c%c->%c" % (a, b, c)
    return int(np.einsum(spec, M).sum()) == 5  # sink
