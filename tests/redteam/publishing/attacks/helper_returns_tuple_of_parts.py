"""Solution: text (a publishing attack: Tuple(1) + helper() returning tuple(parts))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: Tuple(1) + helper() returning tuple(parts)
import sympy


def fields(text):
    return tuple(text.split(","))


def verify(solution, rng):
    return (sympy.Tuple(1) + fields(solution))[1] == 4
