"""Solution: text (a publishing attack: a = b = solution)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a = b = solution
import sympy


def verify(solution, rng):
    a = b = solution
    return sympy.Matrix([[b]])[0, 0] == 4
