"""Solution: text (a publishing attack: box.items.append(solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: box.items.append(solution)
import sympy


class Box:
    def __init__(self):
        self.items = []


def verify(solution, rng):
    box = Box()
    box.items.append(solution)
    return sympy.Matrix([box.items])[0, 0] == 4
