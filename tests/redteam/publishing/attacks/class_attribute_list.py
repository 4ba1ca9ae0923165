"""Solution: text (a publishing attack: Box.items.append(solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Box.items.append(solution)
import sympy


class Box:
    items = []


def verify(solution, rng):
    Box.items.append(solution)
    return sympy.Matrix([Box.items])[0, 0] == 4
