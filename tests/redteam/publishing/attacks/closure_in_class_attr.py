"""Solution: text (a publishing attack: a closure over the text stored on a class)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a closure over the text stored on a class
import sympy


class Box:
    pass


def verify(solution, rng):
    def get():
        return solution

    Box.get = staticmethod(get)
    return sympy.Matrix([[Box.get()]])[0, 0] == 4
