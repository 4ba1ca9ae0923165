"""Solution: text (a publishing attack: itertools.accumulate(parts))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: itertools.accumulate(parts)
import itertools
import sympy


def verify(solution, rng):
    pieces = list(itertools.accumulate(solution.split("|")))
    return sympy.Matrix([pieces[-1:]])[0, 0] == 4
