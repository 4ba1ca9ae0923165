"""Solution: text (a publishing attack: handlers = {'a': lambda: solution}; handlers['a']())."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: handlers = {'a': lambda: solution}; handlers['a']()
import sympy


def verify(solution, rng):
    handlers = {"a": lambda: solution}
    return sympy.Matrix([[handlers["a"]()]])[0, 0] == 4
