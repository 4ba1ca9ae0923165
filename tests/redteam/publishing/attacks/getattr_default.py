"""Solution: text (a publishing attack: getattr(obj, 'missing', solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: getattr(obj, 'missing', solution)
import sympy


class Empty:
    pass


def verify(solution, rng):
    text = getattr(Empty, "missing", solution)
    return sympy.Matrix([[text]])[0, 0] == 4
