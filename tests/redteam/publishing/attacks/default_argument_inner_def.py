"""Solution: text (a publishing attack: def f(t=solution) inside verify)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: def f(t=solution) inside verify
import sympy


def verify(solution, rng):
    def build(text=solution):
        return sympy.Matrix([[text]])

    return build()[0, 0] == 4
