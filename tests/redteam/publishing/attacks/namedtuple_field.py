"""Solution: text (a publishing attack: a namedtuple field holds the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a namedtuple field holds the text
import collections
import sympy

Answer = collections.namedtuple("Answer", "text")


def verify(solution, rng):
    answer = Answer(solution)
    return sympy.Matrix([[answer.text]])[0, 0] == 4
