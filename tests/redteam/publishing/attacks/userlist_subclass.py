"""Solution: text (a publishing attack: a collections.UserList subclass holds the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a collections.UserList subclass holds the text
import sympy
import collections


class Row(collections.UserList):
    pass


def verify(solution, rng):
    row = Row()
    row.append(solution)
    return sympy.Matrix([list(row)])[0, 0] == 4
