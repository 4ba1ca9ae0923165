"""Solution: a JSON 2x2 matrix, symmetric, with no zero entry and eigenvalues 1 and 3
(honest: json.loads into numpy.array with dtype=float, eigvalsh, allclose)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "[[2, 1], [1, 2]]"
# wrong: "[[1, 0], [0, 3]]"
import json

import numpy as np

EIGENVALUES = [1.0, 3.0]


def verify(solution, rng):
    try:
        matrix = np.array(json.loads(solution), dtype=float)
    except (ValueError, TypeError):
        return False
    if matrix.shape != (2, 2) or not np.all(np.isfinite(matrix)):
        return False
    if not np.allclose(matrix, matrix.T) or np.any(matrix == 0):
        return False
    return bool(np.allclose(np.linalg.eigvalsh(matrix), EIGENVALUES))
