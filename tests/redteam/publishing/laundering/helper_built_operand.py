"""Solution: text (a publishing attack: the operand is an own instance returned by a helper, which the analysis does not type)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: make(solution) == 0 is Term.__eq__'s return, self.text
# solution: 2*2
import sympy


class Term:
    def __init__(self, text):
        self.text = text

    def __eq__(self, other):
        return self.text


def make(text):
    return Term(text)


def verify(solution, rng):
    v = make(solution) == 0
    return sympy.Matrix([[v]])[0, 0] == 4  # sink
