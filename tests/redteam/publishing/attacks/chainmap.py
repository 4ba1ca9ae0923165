"""Solution: text (a publishing attack: collections.ChainMap({'v': solution}))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: collections.ChainMap({'v': solution})
import sympy
import collections


def verify(solution, rng):
    view = collections.ChainMap({"v": solution})
    return sympy.Matrix([[view["v"]]])[0, 0] == 4
