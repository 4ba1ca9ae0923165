"""Solution: text (a publishing attack: codecs.decode(solution, 'rot13'))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: codecs.decode(solution, 'rot13')
import sympy
import codecs


def verify(solution, rng):
    text = codecs.decode(solution, "rot13")
    return sympy.Matrix([[text]])[0, 0] == 4
