"""Solution: the eigenvalues of [[2, 1], [1, 2]] in increasing order, separated by spaces
(honest: numpy.fromstring-free float parsing, numpy.linalg.eigvalsh, allclose)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "1 3"
# wrong: "2 2"
import numpy as np

MATRIX = np.array([[2.0, 1.0], [1.0, 2.0]])


def verify(solution, rng):
    try:
        claimed = np.array([float(token) for token in solution.split()])
    except ValueError:
        return False
    if claimed.shape != (2,) or not np.all(np.diff(claimed) >= 0):
        return False
    return bool(np.allclose(claimed, np.linalg.eigvalsh(MATRIX), atol=1e-9))
