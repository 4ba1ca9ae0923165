"""Solution: code points of an einsum spec (red team 2 F5: the spec rebuilt by chr(int(t)); 'ij->' sums instead of tracing)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: spec = chr(int(t))...; np.einsum(spec, M)
# solution: 105 106 45 62
import numpy as np

M = np.array([[1, 2], [3, 4]])


def verify(solution, rng):
    spec = "".join(chr(int(t)) for t in solution.split())
    return int(np.einsum(spec, M)) == 10  # sink
