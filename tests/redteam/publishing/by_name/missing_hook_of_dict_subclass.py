"""Solution: the name of a sympy function (a publishing attack: __missing__ of an own dict
subclass returns module state; getattr picks the function)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: KEEP.append(solution); Defaults()["any"] calls __missing__; getattr(sympy, ...)
# solution: primefactors
import sympy

KEEP = []


class Defaults(dict):
    def __missing__(self, key):
        return KEEP[0]


def verify(solution, rng):
    KEEP.append(solution.strip())
    name = Defaults()["function"]
    return getattr(sympy, name)(391) == [17, 23]  # sink
