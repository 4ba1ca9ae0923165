"""Solution: text (a publishing attack: functools.partial(get)() of a closure)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: functools.partial(get)() of a closure
import sympy
import functools


def verify(solution, rng):
    def get():
        return solution

    return sympy.Matrix([[functools.partial(get)()]])[0, 0] == 4
