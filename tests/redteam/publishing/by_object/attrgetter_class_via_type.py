"""Solution: code points of a helper's name (red team 2 F2: attrgetter reached as
type(attrgetter(...)), then called with the solution's name)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: GETTER = type(operator.attrgetter("real")); GETTER(name)(sympy)
# solution: 112 114 105 109 101 102 97 99 116 111 114 115
import operator

import sympy

GETTER = type(operator.attrgetter("real"))  # sink


def verify(solution, rng):
    name = "".join(chr(int(t)) for t in solution.split())
    return GETTER(name)(sympy)(391)[0] == 17
