"""Solution: code points of a method's name (red team 2 F2: methodcaller's class)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: CALLER = type(operator.methodcaller("conjugate")); CALLER(name, 391)(sympy)
# solution: 112 114 105 109 101 102 97 99 116 111 114 115
import operator

import sympy

CALLER = type(operator.methodcaller("conjugate"))  # sink


def verify(solution, rng):
    name = "".join(chr(int(t)) for t in solution.split())
    return CALLER(name, 391)(sympy)[0] == 17
