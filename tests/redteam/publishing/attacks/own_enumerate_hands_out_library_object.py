"""Solution: text (a publishing attack: an own enumerate() whose "count" is a sympy Tuple)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: the count of a rebound enumerate() is a library object, not an int
import sympy

T = sympy.Tuple(1)


def enumerate(items):
    return [(T, item) for item in items]


def verify(solution, rng):
    for i, tok in enumerate([solution]):
        return (i + tuple(tok.split(",")))[1] == 4
