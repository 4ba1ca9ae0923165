"""Solution: text (a publishing attack: lambda t=solution: Tuple(t))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: lambda t=solution: Tuple(t)
import sympy


def verify(solution, rng):
    build = lambda text=solution: sympy.Tuple(text)
    return build()[0] == 4
