"""Solution: text (a publishing attack: a, b = rows, 1; a[0].append(text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a, b = rows, 1; a[0].append(text)
import sympy


def verify(solution, rng):
    rows = [[]]
    alias, other = rows, 1
    alias[0].append(solution)
    return sympy.Matrix(rows)[0, 0] == 4
