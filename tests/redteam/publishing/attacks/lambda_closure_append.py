"""Solution: text (a publishing attack: a lambda appends to the enclosing list)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a lambda appends to the enclosing list
import sympy


def verify(solution, rng):
    rows = []
    keep = lambda text: rows.append(text)
    keep(solution)
    return sympy.Matrix([rows])[0, 0] == 4
