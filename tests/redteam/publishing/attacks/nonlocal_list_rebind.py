"""Solution: text (a publishing attack: nonlocal rows rebinding to a list with the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: nonlocal rows rebinding to a list with the text
import sympy


def verify(solution, rng):
    rows = []

    def fill():
        nonlocal rows
        rows = rows + [solution]

    fill()
    return sympy.Matrix([rows])[0, 0] == 4
