"""Solution: text (a publishing attack: textwrap.dedent(solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: textwrap.dedent(solution)
import sympy
import textwrap


def verify(solution, rng):
    text = textwrap.dedent(solution)
    return sympy.Matrix([[text]])[0, 0] == 4
