"""Solution: text (a publishing attack: applyfunc(lambda e: text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: applyfunc(lambda e: text)
import sympy


def verify(solution, rng):
    base = sympy.Matrix([[0]])
    return base.applyfunc(lambda cell: solution)[0, 0] == 4
