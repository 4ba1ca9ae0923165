"""Solution: text (a publishing attack: a method fetched from type(instance) and given the instance)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: box.t = text; type(box).read(box) is self.t
# solution: 2*2
import sympy


class Box:
    def __init__(self, text):
        self.t = text

    def read(self):
        return self.t


def verify(solution, rng):
    box = Box(solution)
    return sympy.Matrix([[type(box).read(box)]])[0, 0] == 4  # sink
