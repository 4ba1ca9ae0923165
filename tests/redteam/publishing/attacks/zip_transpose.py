"""Solution: text (a publishing attack: zip(*rows) transposes text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: zip(*rows) transposes text
import sympy


def verify(solution, rng):
    rows = [line.split() for line in solution.splitlines()]
    return sympy.Matrix(list(zip(*rows)))[0, 0] == 4
