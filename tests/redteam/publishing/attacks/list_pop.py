"""Solution: text (a publishing attack: parts.pop())."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: parts.pop()
import sympy


def verify(solution, rng):
    parts = solution.split()
    text = parts.pop()
    return sympy.Matrix([[text]])[0, 0] == 4
