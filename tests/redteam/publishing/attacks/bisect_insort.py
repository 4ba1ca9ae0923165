"""Solution: text (a publishing attack: bisect.insort(cells, tok))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: bisect.insort(cells, tok)
import bisect
import sympy


def verify(solution, rng):
    cells = []
    for tok in solution.split():
        bisect.insort(cells, tok)
    return sympy.Matrix([cells])[0, 0] == 4
