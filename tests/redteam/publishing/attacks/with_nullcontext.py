"""Solution: text (a publishing attack: with contextlib.nullcontext(solution) as t)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: with contextlib.nullcontext(solution) as t
import contextlib
import sympy


def verify(solution, rng):
    with contextlib.nullcontext(solution) as text:
        return sympy.Matrix([[text]])[0, 0] == 4
