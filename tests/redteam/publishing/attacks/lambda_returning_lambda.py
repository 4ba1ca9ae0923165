"""Solution: text (a publishing attack: (lambda: lambda: solution)()())."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: (lambda: lambda: solution)()()
import sympy


def verify(solution, rng):
    get = (lambda: lambda: solution)()
    return sympy.Matrix([[get()]])[0, 0] == 4
