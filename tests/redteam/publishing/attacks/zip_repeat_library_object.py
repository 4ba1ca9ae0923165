"""Solution: text (a publishing attack: zip(parts, itertools.repeat(T)) pairs text with T)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: zip(parts, itertools.repeat(T)) pairs text with T
import sympy
import itertools

T = sympy.Tuple(1)


def verify(solution, rng):
    pairs = list(zip(solution.split(";"), itertools.repeat(T)))
    text, head = pairs[0]
    return (head + tuple(text.split(",")))[1] == 4
