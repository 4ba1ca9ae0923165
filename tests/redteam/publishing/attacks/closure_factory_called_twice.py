"""Solution: text (a publishing attack: make()() returns the enclosing text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: make()() returns the enclosing text
import sympy


def verify(solution, rng):
    def make():
        def get():
            return solution

        return get

    return sympy.Matrix([[make()()]])[0, 0] == 4
