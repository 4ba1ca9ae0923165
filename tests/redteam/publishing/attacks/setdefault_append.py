"""Solution: text (a publishing attack: d.setdefault(k, []).append(tok))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: d.setdefault(k, []).append(tok)
import sympy


def verify(solution, rng):
    table = {}
    for tok in solution.split():
        table.setdefault("row", []).append(tok)
    return sympy.Matrix([table["row"]])[0, 0] == 4
