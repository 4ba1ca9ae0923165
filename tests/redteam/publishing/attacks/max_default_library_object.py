"""Solution: text (a publishing attack: max(..., default=T))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: max(..., default=T)
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    head = max(solution.split("zzz")[1:], default=T)
    return (head + tuple(solution.split(",")))[1] == 4
