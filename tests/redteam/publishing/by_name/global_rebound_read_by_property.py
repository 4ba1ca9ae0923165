"""Solution: the name of a sympy function (a publishing attack: verify rebinds a module global
with `global`; a property of an untouched class reads it)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: global NAME; NAME = solution; Spec().name reads NAME; getattr(sympy, Spec().name)
# solution: primefactors
import sympy

NAME = "isprime"


class Spec:
    @property
    def name(self):
        return NAME


def verify(solution, rng):
    global NAME
    NAME = solution.strip()
    return getattr(sympy, Spec().name)(391) == [17, 23]  # sink
