"""Solution: the name of a sympy function (a publishing attack: a metaclass __getattr__ hands
module state back for any attribute of a class that never held the text)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: STATE.append(solution); Names.wanted runs Meta.__getattr__; getattr(sympy, Names.wanted)
# solution: primefactors
import sympy

STATE = []


class Meta(type):
    def __getattr__(cls, attribute):
        return STATE[0]


class Names(metaclass=Meta):
    pass


def verify(solution, rng):
    STATE.append(solution.strip())
    return getattr(sympy, Names.wanted)(391) == [17, 23]  # sink
