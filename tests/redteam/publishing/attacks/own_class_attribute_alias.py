"""Solution: text (a publishing attack: g = Grid(rows); g.rows[0].append(text); Matrix(rows))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: g = Grid(rows); g.rows[0].append(text); Matrix(rows)
import sympy


class Grid:
    def __init__(self, rows):
        self.rows = rows


def verify(solution, rng):
    rows = [[]]
    grid = Grid(rows)
    grid.rows[0].append(solution)
    return sympy.Matrix(rows)[0, 0] == 4
