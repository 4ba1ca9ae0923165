"""Solution: text (a publishing attack: Matrix(1, n, parts))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Matrix(1, n, parts)
import sympy


def verify(solution, rng):
    parts = solution.split()
    return sympy.Matrix(1, len(parts), parts)[0, 0] == 4
