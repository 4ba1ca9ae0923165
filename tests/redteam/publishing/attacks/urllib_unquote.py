"""Solution: text (a publishing attack: urllib.parse.unquote(solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: urllib.parse.unquote(solution)
import sympy
import urllib.parse


def verify(solution, rng):
    text = urllib.parse.unquote(solution)
    return sympy.Matrix([[text]])[0, 0] == 4
