"""Solution: text (a publishing attack: a nested function appends to a list of the enclosing function)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a nested function appends to a list of the enclosing function
import sympy


def verify(solution, rng):
    rows = []

    def keep(text):
        rows.append(text)

    keep(solution)
    return sympy.Matrix([rows])[0, 0] == 4
