"""Solution: text (a publishing attack: a classmethod constructor keeps the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a classmethod constructor keeps the text
import sympy


class Answer:
    def __init__(self, text):
        self.text = text

    @classmethod
    def parse(cls, text):
        return cls(text.strip())


def verify(solution, rng):
    return sympy.Matrix([[Answer.parse(solution).text]])[0, 0] == 4
