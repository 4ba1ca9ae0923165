"""Solution: text (a publishing attack: type('C', (), {'v': solution}) builds a class holding the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: type('C', (), {'v': solution}) builds a class holding the text
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    holder = type("Holder", (), {"value": solution})
    return sympy.Matrix([[holder.value]])[0, 0] == 4
