"""Solution: text (a publishing attack: a nested function rebinds a nonlocal to a closure)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a nested function rebinds a nonlocal to a closure
import sympy


def verify(solution, rng):
    get = lambda: 0

    def swap():
        nonlocal get
        get = lambda: solution

    swap()
    return sympy.Matrix([[get()]])[0, 0] == 4
