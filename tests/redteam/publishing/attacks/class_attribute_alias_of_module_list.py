"""Solution: text (a publishing attack: class C: grid = GRID; C.grid[0].append(text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: class C: grid = GRID; C.grid[0].append(text)
import sympy

GRID = [[]]


class Holder:
    grid = GRID


def verify(solution, rng):
    Holder.grid[0].append(solution)
    return sympy.Matrix(GRID)[0, 0] == 4
