"""Solution: text (honest: a copy of a grid of ints, changed)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy


def verify(solution, rng):
    grid = [[int(t) for t in line.split()] for line in solution.splitlines()]
    other = [row.copy() for row in grid]
    other[0][0] += 1
    return sympy.Matrix(grid).det() == 1 and sympy.Matrix(other).det() != 1
