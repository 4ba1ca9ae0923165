"""Solution: text (a publishing attack: def keep(t, store=[]): store.append(t); return store)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: def keep(t, store=[]): store.append(t); return store
import sympy


def keep(text, store=[]):
    store.append(text)
    return store


def verify(solution, rng):
    return sympy.Matrix([keep(solution)])[0, 0] == 4
