"""Solution: text (a publishing attack: global G; G = rows; G[0].append(text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: global G; G = rows; G[0].append(text)
import sympy

ALIAS = []


def share(rows):
    ALIAS.append(rows)


def verify(solution, rng):
    rows = [[]]
    share(rows)
    ALIAS[0][0].append(solution)
    return sympy.Matrix(rows)[0, 0] == 4
