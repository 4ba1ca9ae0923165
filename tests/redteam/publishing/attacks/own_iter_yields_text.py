"""Solution: text (a publishing attack: own __iter__ yields the stored text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: own __iter__ yields the stored text
import sympy


class Parts:
    def __init__(self, text):
        self.text = text

    def __iter__(self):
        yield from self.text.split()


def verify(solution, rng):
    return sympy.Matrix([list(Parts(solution))])[0, 0] == 4
