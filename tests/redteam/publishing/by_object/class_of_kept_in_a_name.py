"""Solution: a helper's name (variant: the class kept in a local name, then called)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: kind = op.__class__; kind(solution)(sympy)
# solution: primefactors
import operator

import sympy


def verify(solution, rng):
    op = operator.attrgetter("real")
    kind = op.__class__  # sink
    return kind(solution.strip())(sympy)(391)[0] == 17
