"""Solution: text (a publishing attack: a closure over the text stored in a module-level name)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a closure over the text stored in a module-level name
import sympy

GETTER = None


def use():
    return sympy.Matrix([[GETTER()]])[0, 0] == 4


def verify(solution, rng):
    global GETTER
    GETTER = lambda: solution
    return use()
