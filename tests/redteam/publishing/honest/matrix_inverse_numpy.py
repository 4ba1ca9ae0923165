"""Solution: the inverse of A = [[2, 1], [1, 1]] as two lines of two numbers each
(honest: rows of floats, numpy matmul and allclose)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "1 -1\n-1 2"
# wrong: "1 1\n1 2"
import numpy as np

A = np.array([[2.0, 1.0], [1.0, 1.0]])


def _parse_rows(text: str) -> list[list[float]]:
    rows = []
    for line in text.strip().splitlines():
        rows.append([float(token) for token in line.split()])
    return rows


def verify(solution, rng):
    try:
        rows = _parse_rows(solution)
    except ValueError:
        return False
    if len(rows) != 2 or any(len(row) != 2 for row in rows):
        return False
    inverse = np.array(rows)
    if not np.all(np.isfinite(inverse)):
        return False
    return bool(np.allclose(A @ inverse, np.eye(2))) and bool(np.allclose(inverse @ A, np.eye(2)))
