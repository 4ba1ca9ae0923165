"""Solution: text (a publishing attack: own __eq__ substitutes the other operand)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: own __eq__ substitutes the other operand
import sympy

x = sympy.Symbol("x")


class Expected:
    def __eq__(self, other):
        return (x + 1).subs(x, other) == 5


def verify(solution, rng):
    return Expected() == solution
