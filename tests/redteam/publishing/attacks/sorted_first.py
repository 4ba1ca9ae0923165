"""Solution: text (a publishing attack: sorted(parts)[0])."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: sorted(parts)[0]
import sympy


def verify(solution, rng):
    first = sorted(solution.split())[0]
    return sympy.Matrix([[first]])[0, 0] == 4
