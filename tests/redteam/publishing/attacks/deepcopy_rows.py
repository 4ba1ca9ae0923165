"""Solution: text (a publishing attack: copy.deepcopy(rows))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: copy.deepcopy(rows)
import copy
import sympy


def verify(solution, rng):
    rows = copy.deepcopy([solution.split()])
    return sympy.Matrix(rows)[0, 0] == 4
