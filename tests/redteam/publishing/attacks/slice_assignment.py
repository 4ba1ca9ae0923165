"""Solution: text (a publishing attack: rows[0][:] = parts)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: rows[0][:] = parts
import sympy


def verify(solution, rng):
    rows = [[0]]
    rows[0][:] = solution.split()
    return sympy.Matrix(rows)[0, 0] == 4
