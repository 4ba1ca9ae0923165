"""Solution: text (a publishing attack: an own str subclass of the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: an own str subclass of the text
import sympy


class Text(str):
    pass


def verify(solution, rng):
    text = Text(solution)
    return sympy.Matrix([[text]])[0, 0] == 4
