"""Solution: text (a publishing attack: set(parts).pop())."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: set(parts).pop()
import sympy


def verify(solution, rng):
    text = set(solution.split()).pop()
    return sympy.Matrix([[text]])[0, 0] == 4
