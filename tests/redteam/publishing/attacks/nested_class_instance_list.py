"""Solution: text (a publishing attack: an instance's list of lists)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: an instance's list of lists
import sympy


class Grid:
    def __init__(self):
        self.rows = [[]]


def verify(solution, rng):
    grid = Grid()
    grid.rows[-1].append(solution)
    return sympy.Matrix(grid.rows)[0, 0] == 4
