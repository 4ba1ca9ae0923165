"""Solution: text (a publishing attack: defaultdict(lambda: T)[text] is T)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: defaultdict(lambda: T)[text] is T
import sympy
import collections

T = sympy.Tuple(1)


def verify(solution, rng):
    table = collections.defaultdict(lambda: T)
    head = table[solution]
    return (head + tuple(solution.split(",")))[1] == 4
