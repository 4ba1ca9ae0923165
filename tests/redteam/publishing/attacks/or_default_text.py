"""Solution: text (a publishing attack: parts[0] or '0')."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: parts[0] or '0'
import sympy


def verify(solution, rng):
    text = solution.strip() or "0"
    return sympy.Matrix([[text]])[0, 0] == 4
