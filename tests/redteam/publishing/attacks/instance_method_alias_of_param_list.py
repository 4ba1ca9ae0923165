"""Solution: text (a publishing attack: an instance keeps the caller's list and appends to it)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: an instance keeps the caller's list and appends to it
import sympy


class Keeper:
    def __init__(self, rows):
        self.rows = rows

    def keep(self, text):
        self.rows.append(text)


def verify(solution, rng):
    rows = []
    Keeper(rows).keep(solution)
    return sympy.Matrix([rows])[0, 0] == 4
