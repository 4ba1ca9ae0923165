"""Solution: text (a publishing attack: nonlocal assignment in a nested function)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: nonlocal assignment in a nested function
import sympy


def verify(solution, rng):
    value = 0

    def grab():
        nonlocal value
        value = solution

    grab()
    return sympy.Matrix([[value]])[0, 0] == 4
