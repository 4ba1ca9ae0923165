"""Solution: text (a publishing attack: max(parts, key=len))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: max(parts, key=len)
import sympy


def verify(solution, rng):
    longest = max(solution.split(), key=len)
    return sympy.Matrix([[longest]])[0, 0] == 4
