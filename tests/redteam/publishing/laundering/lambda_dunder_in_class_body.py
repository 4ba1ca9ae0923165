"""Solution: text (a publishing attack: __eq__ bound to a lambda in the class body)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Term(solution) == 0 is the lambda's return, self.text
# solution: 2*2
import sympy


class Term:
    def __init__(self, text):
        self.text = text

    __eq__ = lambda self, other: self.text


def verify(solution, rng):
    v = Term(solution) == 0
    return sympy.Matrix([[v]])[0, 0] == 4  # sink
