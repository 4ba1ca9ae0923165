"""Solution: text (a publishing attack: a property setter stores the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a property setter stores the text
import sympy


class Holder:
    def __init__(self):
        self._v = 0

    @property
    def value(self):
        return self._v

    @value.setter
    def value(self, text):
        self._v = text


def verify(solution, rng):
    h = Holder()
    h.value = solution
    return sympy.Matrix([[h.value]])[0, 0] == 4
