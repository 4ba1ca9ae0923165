"""Solution: text (a publishing attack: next(iter([]), solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: next(iter([]), solution)
import sympy


def verify(solution, rng):
    text = next(iter([]), solution)
    return sympy.Matrix([[text]])[0, 0] == 4
