"""Solution: the name of a sympy function (a publishing attack: a _sympystr hook, called by
sympy's printer, hands module state back)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: STATE.append(solution); sympy.sstr(Hook()) calls Hook._sympystr, which returns it
# solution: primefactors
import operator

import sympy

STATE = []


class Hook:
    def _sympystr(self, printer):
        return STATE[-1]


def verify(solution, rng):
    STATE.append(solution.strip())
    name = sympy.sstr(Hook())  # sink
    return operator.attrgetter(name)(sympy)(391) == [17, 23]
