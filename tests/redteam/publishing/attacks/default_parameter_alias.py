"""Solution: text (a publishing attack: def fill(text, grid=GRID): grid[0].append(text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: def fill(text, grid=GRID): grid[0].append(text)
import sympy

GRID = [[]]


def fill(text, grid=GRID):
    grid[0].append(text)


def verify(solution, rng):
    fill(solution)
    return sympy.Matrix(GRID)[0, 0] == 4
