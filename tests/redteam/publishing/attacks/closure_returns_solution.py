"""Solution: text (a publishing attack: a nested function returns the enclosing solution)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a nested function returns the enclosing solution
import sympy


def verify(solution, rng):
    def get():
        return solution

    return sympy.Matrix([[get()]])[0, 0] == 4
