"""Solution: text (a publishing attack: collections.Counter(parts).most_common()[0][0])."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: collections.Counter(parts).most_common()[0][0]
import sympy
import collections


def verify(solution, rng):
    word = collections.Counter(solution.split()).most_common(1)[0][0]
    return sympy.Matrix([[word]])[0, 0] == 4
