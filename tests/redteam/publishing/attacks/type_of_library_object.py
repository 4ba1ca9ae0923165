"""Solution: text (a publishing attack: type(M)([[solution]]))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: type(M)([[solution]])
import sympy

M = sympy.Matrix([[1]])


def verify(solution, rng):
    return type(M)([[solution]])[0, 0] == 4
