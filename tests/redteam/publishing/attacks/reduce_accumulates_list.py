"""Solution: text (a publishing attack: functools.reduce builds the list)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: functools.reduce builds the list
import functools
import sympy


def verify(solution, rng):
    parts = functools.reduce(lambda acc, t: acc + [t], solution.split(), [])
    return sympy.Matrix([parts])[0, 0] == 4
