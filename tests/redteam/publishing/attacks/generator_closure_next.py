"""Solution: text (a publishing attack: next(gen()) of a nested generator over the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: next(gen()) of a nested generator over the text
import sympy


def verify(solution, rng):
    def gen():
        yield solution

    return sympy.Matrix([[next(gen())]])[0, 0] == 4
