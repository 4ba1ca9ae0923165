"""Solution: text (a publishing attack: list.__setitem__(rows, 0, tok))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: list.__setitem__(rows, 0, tok)
import sympy


def verify(solution, rng):
    row = [0]
    list.__setitem__(row, 0, solution)
    return sympy.Matrix([row])[0, 0] == 4
