"""Solution: text (a publishing attack: tuple(parts) + Tuple(1))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: tuple(parts) + Tuple(1)
import sympy


def verify(solution, rng):
    return (tuple(solution.split(",")) + sympy.Tuple(1))[0] == 4
