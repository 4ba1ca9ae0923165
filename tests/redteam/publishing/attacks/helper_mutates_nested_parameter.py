"""Solution: text (a publishing attack: push(grid, t) appends to grid[-1])."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: push(grid, t) appends to grid[-1]
import sympy


def push(grid, item):
    grid[-1].append(item)


def verify(solution, rng):
    grid = [[]]
    push(grid, solution)
    return sympy.Matrix(grid)[0, 0] == 4
