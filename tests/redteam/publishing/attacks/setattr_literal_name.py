"""Solution: text (a publishing attack: setattr(box, 'v', solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: setattr(box, 'v', solution)
import sympy


class Box:
    v = 0


def verify(solution, rng):
    box = Box()
    setattr(box, "v", solution)
    return sympy.Matrix([[box.v]])[0, 0] == 4
