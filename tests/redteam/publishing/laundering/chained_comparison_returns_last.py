"""Solution: text (a publishing attack: a chained comparison is the last pair's result when the first is true)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: 0 <= Term(solution) <= 9 is Term.__le__'s return once __ge__ returned a true value
# solution: 2*2
import sympy


class Term:
    def __init__(self, text):
        self.text = text

    def __ge__(self, other):
        return True

    def __le__(self, other):
        return self.text


def verify(solution, rng):
    v = 0 <= Term(solution) <= 9
    return sympy.Matrix([[v]])[0, 0] == 4  # sink
