"""Solution: text (a publishing attack: make(text) returns a closure over its argument)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: make(text) returns a closure over its argument
import sympy


def make(text):
    def get():
        return text

    return get


def verify(solution, rng):
    get = make(solution)
    return sympy.Matrix([[get()]])[0, 0] == 4
