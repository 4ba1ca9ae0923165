"""Solution: text (a publishing attack: super().__init__ stores the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: super().__init__ stores the text
import sympy


class Base:
    def __init__(self, text):
        self.text = text


class Child(Base):
    def __init__(self, text):
        super().__init__(text)


def verify(solution, rng):
    return sympy.Matrix([[Child(solution).text]])[0, 0] == 4
