"""Solution: text (a publishing attack: a recursive helper passes the text down)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a recursive helper passes the text down
import sympy


def build(text, depth):
    if depth:
        return build(text, depth - 1)
    return sympy.Matrix([[text]])


def verify(solution, rng):
    return build(solution, 3)[0, 0] == 4
