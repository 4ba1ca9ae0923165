"""Solution: text (a publishing attack: closures over the loop's token kept in a list, called later)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: closures over the loop's token kept in a list, called later
import sympy


def verify(solution, rng):
    getters = []
    for tok in solution.split():

        def get():
            return tok

        getters.append(get)
    return sympy.Matrix([[getters[0]()]])[0, 0] == 4
