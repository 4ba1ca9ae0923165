"""Solution: text (a publishing attack: itertools.accumulate(parts, initial=T))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: itertools.accumulate(parts, initial=T)
import sympy
import itertools

T = sympy.Tuple(1)


def verify(solution, rng):
    steps = list(itertools.accumulate([tuple(solution.split(","))], initial=T))
    return steps[-1][1] == 4
