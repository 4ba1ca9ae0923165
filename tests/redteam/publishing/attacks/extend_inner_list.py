"""Solution: text (a publishing attack: rows[0].extend(parts))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: rows[0].extend(parts)
import sympy


def verify(solution, rng):
    rows = [[], []]
    rows[0].extend(solution.split())
    return sympy.Matrix(rows[:1])[0, 0] == 4
