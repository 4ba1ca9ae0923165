"""Solution: text (a publishing attack: global assignment in a helper)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: global assignment in a helper
import sympy

VALUE = 0


def grab(text):
    global VALUE
    VALUE = text


def verify(solution, rng):
    grab(solution)
    return sympy.Matrix([[VALUE]])[0, 0] == 4
