"""Solution: text (a publishing attack: an own __lt__ returns the text; < was a plain bool)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Term(solution) < 0 is Term.__lt__'s return, self.text
# solution: 2*2
import sympy


class Term:
    def __init__(self, text):
        self.text = text

    def __lt__(self, other):
        return self.text


def verify(solution, rng):
    v = Term(solution) < 0
    return sympy.Matrix([[v]])[0, 0] == 4  # sink
