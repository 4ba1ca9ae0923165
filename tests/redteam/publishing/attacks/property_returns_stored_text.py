"""Solution: text (a publishing attack: a property returns the stored text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a property returns the stored text
import sympy


class Holder:
    def __init__(self, text):
        self._text = text

    @property
    def value(self):
        return self._text


def verify(solution, rng):
    return sympy.Matrix([[Holder(solution).value]])[0, 0] == 4
