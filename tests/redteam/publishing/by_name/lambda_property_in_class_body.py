"""Solution: the name of a sympy function (a publishing attack: a property built from a lambda in
the class body, read back through attrgetter)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: STATE["name"] = solution; Reader().name is property(lambda self: STATE["name"])
# solution: primefactors
import operator

import sympy

STATE = {}


class Reader:
    name = property(lambda self: STATE["name"])


def verify(solution, rng):
    STATE["name"] = solution.strip()
    pick = operator.attrgetter(Reader().name)  # sink
    return pick(sympy)(391) == [17, 23]
