"""Solution: text (a publishing attack: parts.count(Expected()): each part meets the own __eq__)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: parts.count(Expected()): each part meets the own __eq__
import sympy

x = sympy.Symbol("x")


class Expected:
    def __eq__(self, other):
        return (x + 1).subs(x, other) == 5

    __hash__ = None


def verify(solution, rng):
    return solution.split().count(Expected()) == 1
