"""Solution: text (a publishing attack: solution and T is T)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: solution and T is T
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    head = solution and T
    return (head + tuple(solution.split(",")))[1] == 4
