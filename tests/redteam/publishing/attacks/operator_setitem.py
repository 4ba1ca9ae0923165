"""Solution: text (a publishing attack: operator.setitem(row, 0, tok))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: operator.setitem(row, 0, tok)
import operator
import sympy


def verify(solution, rng):
    row = [0]
    operator.setitem(row, 0, solution)
    return sympy.Matrix([row])[0, 0] == 4
