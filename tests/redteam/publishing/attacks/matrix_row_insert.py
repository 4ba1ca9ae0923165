"""Solution: text (a publishing attack: M.row_insert(0, Matrix([[text]]))... via list)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: M.row_insert(0, Matrix([[text]]))... via list
import sympy


def verify(solution, rng):
    base = sympy.Matrix([[1]])
    return base.col_insert(0, sympy.Matrix([solution.split()]))[0, 0] == 4
