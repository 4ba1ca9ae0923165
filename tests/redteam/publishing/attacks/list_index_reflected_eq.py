"""Solution: text (a publishing attack: parts.index(Expected()))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: parts.index(Expected())
import sympy

x = sympy.Symbol("x")


class Expected:
    def __eq__(self, other):
        return (x + 1).subs(x, other) == 5

    __hash__ = None


def verify(solution, rng):
    return solution.split().index(Expected()) == 0
