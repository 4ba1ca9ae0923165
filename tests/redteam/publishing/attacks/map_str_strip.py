"""Solution: text (a publishing attack: map(str.strip, parts))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: map(str.strip, parts)
import sympy


def verify(solution, rng):
    parts = list(map(str.strip, solution.split(",")))
    return sympy.Matrix([parts])[0, 0] == 4
