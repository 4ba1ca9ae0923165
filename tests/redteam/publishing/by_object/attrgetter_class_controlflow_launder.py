"""Solution: the name of a helper in lower-case letters (red team 2 F2: attrgetter's
class, the name rebuilt letter by letter by comparison)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: name = letters equal to the solution's; type(attrgetter("real"))(name)(sympy)
# solution: primefactors
import operator
import string

import sympy

GETTER = type(operator.attrgetter("real"))  # sink


def verify(solution, rng):
    name = "".join(c for s in solution for c in string.ascii_lowercase if c == s)
    return GETTER(name)(sympy)(391)[0] == 17
