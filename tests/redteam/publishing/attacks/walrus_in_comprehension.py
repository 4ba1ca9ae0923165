"""Solution: text (a publishing attack: (last := t) leaks out of a comprehension)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: (last := t) leaks out of a comprehension
import sympy


def verify(solution, rng):
    [(last := t) for t in solution.split()]
    return sympy.Matrix([[last]])[0, 0] == 4
