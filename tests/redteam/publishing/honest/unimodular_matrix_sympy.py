"""Solution: a 3x3 integer matrix, one row per line, with determinant 1, every entry non-zero
and between -5 and 5 (honest: rows of ints into sympy.Matrix, det)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "2 1 1\n1 1 1\n1 1 2"
# wrong: "1 1 1\n1 1 1\n1 1 1"
import sympy


def verify(solution, rng):
    rows = [line.split() for line in solution.strip().splitlines()]
    if len(rows) != 3 or any(len(row) != 3 for row in rows):
        return False
    try:
        entries = [[int(cell) for cell in row] for row in rows]
    except ValueError:
        return False
    if any(cell == 0 or abs(cell) > 5 for row in entries for cell in row):
        return False
    return sympy.Matrix(entries).det() == 1
