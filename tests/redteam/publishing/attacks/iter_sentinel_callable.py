"""Solution: text (a publishing attack: iter(lambda: T, None) yields T)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: iter(lambda: T, None) yields T
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    head = next(iter(lambda: T, None))
    return (head + tuple(solution.split(",")))[1] == 4
