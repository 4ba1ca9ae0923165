"""Solution: text (a publishing attack: a class body stores T, an instance holds the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a class body stores T, an instance holds the text
import sympy

T = sympy.Tuple(1)


class Box:
    head = T

    def __init__(self, text):
        self.text = text


def verify(solution, rng):
    box = Box(solution)
    return (box.head + tuple(box.text.split(",")))[1] == 4
