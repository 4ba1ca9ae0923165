"""Solution: text (a publishing attack: rows[0:0] = [solution])."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: rows[0:0] = [solution]
import sympy


def verify(solution, rng):
    rows = []
    rows[0:0] = [solution]
    return sympy.Matrix([rows])[0, 0] == 4
