"""Solution: the name of a sympy function (a publishing attack: the outside reviewer's forgery,
the text laundered through module state and a @property, then picked by string.Formatter)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: STATE['s'] = solution; Box().t reads it back; Formatter().get_field picks sympy.<text>
# solution: primefactors
import string

import sympy

STATE = {}


class Box:
    @property
    def t(self):
        return STATE["s"]


def verify(solution, rng):
    STATE["s"] = solution.strip()
    factor = string.Formatter().get_field("0." + Box().t, [sympy], {})[0]  # sink
    return factor(391) == [17, 23]
