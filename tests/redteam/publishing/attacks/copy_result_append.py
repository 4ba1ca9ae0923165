"""Solution: text (a publishing attack: rows.copy()[0].append(text): a shallow copy shares the inner list)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: rows.copy()[0].append(text): a shallow copy shares the inner list
import sympy


def verify(solution, rng):
    rows = [[]]
    rows.copy()[0].append(solution)
    return sympy.Matrix(rows)[0, 0] == 4
