"""Solution: the name of a sympy method (a publishing attack: a default argument is a module
global the solution was stored into; methodcaller calls the method it names)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: STATE["m"] = solution; read() returns d["m"] with d=STATE; operator.methodcaller(read())
# solution: factor
import operator

import sympy

STATE = {}


def read(d=STATE):
    return d["m"]


def verify(solution, rng):
    STATE["m"] = solution.strip()
    x = sympy.Symbol("x")
    call = operator.methodcaller(read())  # sink
    return call(x**2 - 1) == (x - 1) * (x + 1)
