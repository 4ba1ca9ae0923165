"""Solution: text (a publishing attack: closures capturing tokens, called later)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: closures capturing tokens, called later
import sympy


def verify(solution, rng):
    makers = [lambda t=tok: t for tok in solution.split()]
    return sympy.Matrix([[makers[0]()]])[0, 0] == 4
