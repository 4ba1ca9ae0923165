"""Solution: text (a publishing attack: for row, tok in zip(grid, parts): row.append(tok))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: for row, tok in zip(grid, parts): row.append(tok)
import sympy


def verify(solution, rng):
    grid = [[]]
    for row, tok in zip(grid, solution.split()):
        row.append(tok)
    return sympy.Matrix(grid)[0, 0] == 4
