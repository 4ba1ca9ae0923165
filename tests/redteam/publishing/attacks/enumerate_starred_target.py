"""Solution: text (a publishing attack: a starred target takes both the count and the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: for *pair, in enumerate(parts): pair[1] is the text
import sympy


def verify(solution, rng):
    for (*pair,) in enumerate(solution.split()):
        return sympy.Matrix([[pair[1]]])[0, 0] == 4
    return False
