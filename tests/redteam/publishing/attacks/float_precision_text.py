"""Solution: text (a publishing attack: Float(text, 7): a 7-digit root accepted)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Float(text, 7): a 7-digit root accepted
import sympy


def verify(solution, rng):
    root = sympy.Float(solution, 7)
    return abs(root**3 - 2 + root) < 1e-6
