"""Solution: text (a publishing attack: string.Template(...).substitute(v=solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: string.Template(...).substitute(v=solution)
import string
import sympy


def verify(solution, rng):
    text = string.Template("$v").substitute(v=solution)
    return sympy.Matrix([[text]])[0, 0] == 4
