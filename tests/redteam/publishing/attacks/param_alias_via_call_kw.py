"""Solution: text (a publishing attack: keep(store=rows, text=solution) by keywords)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: keep(store=rows, text=solution) by keywords
import sympy


def keep(text, store):
    store.append(text)


def verify(solution, rng):
    rows = []
    keep(store=rows, text=solution)
    return sympy.Matrix([rows])[0, 0] == 4
