"""Solution: a helper's name (variant: the re-exported operator module imported by name)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: from mpmath.math2 import operator as op; op.methodcaller(name, 391)(sympy)
# solution: primefactors
import sympy
from mpmath.math2 import operator as op


def verify(solution, rng):
    return op.methodcaller(solution.strip(), 391)(sympy)[0] == 17  # sink
