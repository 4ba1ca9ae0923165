"""Solution: text (a publishing attack: 0 < Term(solution) runs the reflected Term.__gt__)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: 0 < Term(solution) is Term.__gt__(term, 0), self.text
# solution: 2*2
import sympy


class Term:
    def __init__(self, text):
        self.text = text

    def __gt__(self, other):
        return self.text


def verify(solution, rng):
    v = 0 < Term(solution)
    return sympy.Matrix([[v]])[0, 0] == 4  # sink
