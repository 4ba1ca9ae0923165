"""Solution: text (a publishing attack: sympy.N(solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: sympy.N(solution)
import sympy


def verify(solution, rng):
    return sympy.N(solution) == 4
