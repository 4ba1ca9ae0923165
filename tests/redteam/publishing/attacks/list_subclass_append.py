"""Solution: text (a publishing attack: an own list subclass holds the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: an own list subclass holds the text
import sympy


class Row(list):
    pass


def verify(solution, rng):
    row = Row()
    row.append(solution)
    return sympy.Matrix([row])[0, 0] == 4
