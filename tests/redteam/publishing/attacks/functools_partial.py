"""Solution: text (a publishing attack: functools.partial(sympy.Matrix))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: functools.partial(sympy.Matrix)
import functools
import sympy


def verify(solution, rng):
    build = functools.partial(sympy.Matrix)
    return build([[solution]])[0, 0] == 4
