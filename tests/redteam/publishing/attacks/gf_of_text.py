"""Solution: text (a publishing attack: the modular integers of the run-time grammar: GF(1009)(text) through Matrix)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: the modular integers of the run-time grammar: GF(1009)(text) through Matrix
import sympy


def verify(solution, rng):
    p, q = solution.split("*")
    return sympy.Matrix([[p, q]]).det() == 0
