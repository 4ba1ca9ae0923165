"""Solution: text (a publishing attack: own .count() builds Matrix of its argument)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: own .count() builds Matrix of its argument
import sympy


class Answers:
    def count(self, item):
        return sympy.Matrix([[item]])[0, 0]


def verify(solution, rng):
    return Answers().count(solution) == 4
