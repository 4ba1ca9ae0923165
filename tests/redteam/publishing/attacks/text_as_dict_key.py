"""Solution: text (a publishing attack: the text stored as a dict key, then list(keys))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: pairs[solution] = 1; Matrix([list(pairs)])
import sympy


def verify(solution, rng):
    pairs = {}
    pairs[solution] = 1
    return sympy.Matrix([list(pairs)])[0, 0] == 4
