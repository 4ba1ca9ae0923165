"""Solution: text (a publishing attack: own __getitem__ builds from the key)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: own __getitem__ builds from the key
import sympy


class Table:
    def __getitem__(self, key):
        return sympy.Matrix([[key]])[0, 0]


def verify(solution, rng):
    return Table()[solution] == 4
