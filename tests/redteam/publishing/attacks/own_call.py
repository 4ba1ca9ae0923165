"""Solution: text (a publishing attack: own __call__ builds from the argument)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: own __call__ builds from the argument
import sympy


class Checker:
    def __call__(self, text):
        return sympy.Matrix([[text]])[0, 0] == 4


def verify(solution, rng):
    check = Checker()
    return check(solution)
