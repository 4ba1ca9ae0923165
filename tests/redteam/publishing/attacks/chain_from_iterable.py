"""Solution: text (a publishing attack: itertools.chain.from_iterable)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: itertools.chain.from_iterable
import itertools
import sympy


def verify(solution, rng):
    flat = list(itertools.chain.from_iterable([solution.split()]))
    return sympy.Matrix([flat])[0, 0] == 4
