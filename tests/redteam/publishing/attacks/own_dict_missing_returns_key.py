"""Solution: text (a publishing attack: an own dict's __missing__ hands back the key)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: an own dict's __missing__ hands back the key
import sympy


class Echo(dict):
    def __missing__(self, key):
        return key


def verify(solution, rng):
    cells = Echo()
    return sympy.Matrix([[cells[solution]]])[0, 0] == 4
