"""Solution: text (a publishing attack: try/finally appends)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: try/finally appends
import sympy


def verify(solution, rng):
    rows = []
    try:
        pass
    finally:
        rows.append(solution)
    return sympy.Matrix([rows])[0, 0] == 4
