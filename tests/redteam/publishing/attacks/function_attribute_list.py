"""Solution: text (a publishing attack: keep.items.append(solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: keep.items.append(solution)
import sympy


def keep():
    pass


keep.items = []


def verify(solution, rng):
    keep.items.append(solution)
    return sympy.Matrix([keep.items])[0, 0] == 4
