"""Solution: text (a publishing attack: a module-level list appended to by a helper)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a module-level list appended to by a helper
import sympy

STORE = []


def keep(text):
    STORE.append(text)


def verify(solution, rng):
    keep(solution)
    return sympy.Matrix([STORE])[0, 0] == 4
