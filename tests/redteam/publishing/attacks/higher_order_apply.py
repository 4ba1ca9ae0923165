"""Solution: text (a publishing attack: apply(sympy.Matrix, [[solution]]))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: apply(sympy.Matrix, [[solution]])
import sympy


def apply(function, value):
    return function(value)


def verify(solution, rng):
    return apply(sympy.Matrix, [[solution]])[0, 0] == 4
