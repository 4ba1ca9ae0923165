"""Solution: a non-zero integer vector v, three integers on one line, with M*v = 0 for
M = [[1, 2, 3], [4, 5, 6], [7, 8, 9]] (honest: sympy.Matrix of ints, is_zero_matrix)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "1 -2 1"
# wrong: "1 1 1"
import sympy

M = sympy.Matrix([[1, 2, 3], [4, 5, 6], [7, 8, 9]])


def verify(solution, rng):
    try:
        entries = list(map(int, solution.split()))
    except ValueError:
        return False
    if len(entries) != 3 or not any(entries):
        return False
    vector = sympy.Matrix(entries)
    return bool((M * vector).is_zero_matrix)
