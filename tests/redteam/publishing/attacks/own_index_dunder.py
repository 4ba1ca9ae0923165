"""Solution: text (a publishing attack: an own __index__ computing with the stored text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: an own __index__ computing with the stored text
import sympy


class Index:
    def __init__(self, text):
        self.text = text

    def __index__(self):
        return int(sympy.Matrix([[self.text]])[0, 0])


def verify(solution, rng):
    return [0, 1, 2, 3, 4][Index(solution)] == 4
