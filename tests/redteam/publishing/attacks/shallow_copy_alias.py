"""Solution: text (a publishing attack: other = grid.copy(); other[0].append(text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: other = grid.copy(); other[0].append(text)
import sympy


def verify(solution, rng):
    grid = [[]]
    other = grid.copy()
    other[0].append(solution)
    return sympy.Matrix(grid)[0, 0] == 4
