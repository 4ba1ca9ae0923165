"""Solution: text (honest: rows of Fractions times A is the identity)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import fractions
import sympy

A = sympy.Matrix([[2, 1], [1, 1]])


def verify(solution, rng):
    rows = [[fractions.Fraction(cell) for cell in line.split()] for line in solution.splitlines()]
    if len(rows) != 2 or any(len(row) != 2 for row in rows):
        return False
    candidate = sympy.Matrix(
        [[sympy.Rational(c.numerator, c.denominator) for c in row] for row in rows]
    )
    return candidate * A == sympy.eye(2)
