"""Solution: text (a publishing attack: sum([[t] for t in parts], []))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: sum([[t] for t in parts], [])
import sympy


def verify(solution, rng):
    flat = sum([[t] for t in solution.split()], [])
    return sympy.Matrix([flat])[0, 0] == 4
