"""Solution: text (a publishing attack: sorted([Expected(), solution]) reaches the own __lt__)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: sorted([Expected(), solution]) reaches the own __lt__
import sympy

x = sympy.Symbol("x")


class Low:
    def __lt__(self, other):
        return (x + 1).subs(x, other) == 5

    def __gt__(self, other):
        return (x + 1).subs(x, other) == 5


def verify(solution, rng):
    return sorted([Low(), solution])[0] == 0
