"""Solution: text (a publishing attack: solution.encode().decode())."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: solution.encode().decode()
import sympy


def verify(solution, rng):
    text = solution.encode().decode()
    return sympy.Matrix([[text]])[0, 0] == 4
