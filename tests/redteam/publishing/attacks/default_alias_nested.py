"""Solution: text (a publishing attack: def keep(text, store=rows): the default aliases the enclosing list)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: def keep(text, store=rows): the default aliases the enclosing list
import sympy


def verify(solution, rng):
    rows = []

    def keep(text, store=rows):
        store.append(text)

    keep(solution)
    return sympy.Matrix([rows])[0, 0] == 4
