"""Solution: text (a publishing attack: own __contains__ builds Matrix of the item)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: own __contains__ builds Matrix of the item
import sympy


class Answers:
    def __contains__(self, item):
        return sympy.Matrix([[item]])[0, 0] == 4


def verify(solution, rng):
    return solution in Answers()
