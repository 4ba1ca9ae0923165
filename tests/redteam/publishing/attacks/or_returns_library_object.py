"""Solution: text (a publishing attack: '' .strip() or T)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: '' .strip() or T
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    head = solution[:0] or T
    return (head + tuple(solution.split(",")))[1] == 4
