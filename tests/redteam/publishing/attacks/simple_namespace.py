"""Solution: text (a publishing attack: types.SimpleNamespace(v=solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: types.SimpleNamespace(v=solution)
import types
import sympy


def verify(solution, rng):
    ns = types.SimpleNamespace(value=solution)
    return sympy.Matrix([[ns.value]])[0, 0] == 4
