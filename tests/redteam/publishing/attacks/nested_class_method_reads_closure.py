"""Solution: text (a publishing attack: a class defined in verify returns the enclosing text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a class defined in verify returns the enclosing text
import sympy


def verify(solution, rng):
    class Box:
        def get(self):
            return solution

    return sympy.Matrix([[Box().get()]])[0, 0] == 4
