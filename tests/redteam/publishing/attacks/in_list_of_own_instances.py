"""Solution: text (a publishing attack: solution in [Expected()])."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: solution in [Expected()]
import sympy

x = sympy.Symbol("x")


class Expected:
    def __eq__(self, other):
        return (x + 1).subs(x, other) == 5

    __hash__ = None


def verify(solution, rng):
    return solution in [Expected()]
