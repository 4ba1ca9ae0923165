"""Solution: text (a publishing attack: next(iter(rows)).append(text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: next(iter(rows)).append(text)
import sympy


def verify(solution, rng):
    rows = [[]]
    next(iter(rows)).append(solution)
    return sympy.Matrix(rows)[0, 0] == 4
