"""Solution: text (a publishing attack: a nested helper appends into the enclosing dict's list)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a nested helper appends into the enclosing dict's list
import sympy


def verify(solution, rng):
    table = {"r": []}

    def keep(text):
        table["r"].append(text)

    keep(solution)
    return sympy.Matrix([table["r"]])[0, 0] == 4
