"""Solution: text (a publishing attack: {Key(): 1}.get(solution): the own __eq__ on a hash match)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: {Key(): 1}.get(solution): the own __eq__ on a hash match
import sympy

x = sympy.Symbol("x")


class Key:
    def __hash__(self):
        return 0

    def __eq__(self, other):
        return (x + 1).subs(x, other) == 5


def verify(solution, rng):
    return {Key(): True}.get(solution, False)
