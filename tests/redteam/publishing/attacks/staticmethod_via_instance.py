"""Solution: text (a publishing attack: a staticmethod called through an instance)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a staticmethod called through an instance
import sympy


class Tools:
    @staticmethod
    def build(text):
        return sympy.Matrix([[text]])


def verify(solution, rng):
    return Tools().build(solution)[0, 0] == 4
