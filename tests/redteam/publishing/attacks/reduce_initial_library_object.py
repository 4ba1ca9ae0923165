"""Solution: text (a publishing attack: functools.reduce(operator.add, [parts], T))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: functools.reduce(operator.add, [parts], T)
import sympy
import functools
import operator

T = sympy.Tuple(1)


def verify(solution, rng):
    total = functools.reduce(operator.add, [tuple(solution.split(","))], T)
    return total[1] == 4
