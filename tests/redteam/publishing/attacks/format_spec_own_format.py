"""Solution: text (a publishing attack: format(Own(), solution): the own __format__ gets the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: format(Own(), solution): the own __format__ gets the text
import sympy

x = sympy.Symbol("x")


class Own:
    def __format__(self, spec):
        return str((x + 1).subs(x, spec))


def verify(solution, rng):
    return format(Own(), solution) == "5"
