"""Solution: text (a publishing attack: operator.itemgetter(0)(parts))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: operator.itemgetter(0)(parts)
import sympy
import operator


def verify(solution, rng):
    text = operator.itemgetter(0)(solution.split())
    return sympy.Matrix([[text]])[0, 0] == 4
