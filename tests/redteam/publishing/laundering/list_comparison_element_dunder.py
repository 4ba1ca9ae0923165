"""Solution: text (a publishing attack: a list comparison returns its deciding elements' __lt__ result as it is)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: [Term(solution)] < [0] is Term.__lt__'s return, self.text
# solution: 2*2
import sympy


class Term:
    def __init__(self, text):
        self.text = text

    def __eq__(self, other):
        return False

    def __lt__(self, other):
        return self.text


def verify(solution, rng):
    v = [Term(solution)] < [0]
    return sympy.Matrix([[v]])[0, 0] == 4  # sink
