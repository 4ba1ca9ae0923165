"""Solution: text (a publishing attack: copy.copy(parts))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: copy.copy(parts)
import copy
import sympy


def verify(solution, rng):
    parts = copy.copy(solution.split())
    return sympy.Matrix([parts])[0, 0] == 4
