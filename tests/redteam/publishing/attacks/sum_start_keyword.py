"""Solution: text (a publishing attack: sum([...], start=T))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: sum([...], start=T)
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    total = sum([tuple(solution.split(","))], start=T)
    return total[1] == 4
