"""Solution: text (a publishing attack: acc = T; acc += tuple(parts))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: acc = T; acc += tuple(parts)
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    acc = T
    acc += tuple(solution.split(","))
    return acc[1] == 4
