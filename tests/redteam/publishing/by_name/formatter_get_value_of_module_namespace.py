"""Solution: the name of a sympy function (a publishing attack: Formatter.get_value looks the
text up in a namespace mapping)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: string.Formatter().get_value(text, (), sympy.__dict__)
# solution: primefactors
import string

import sympy


def verify(solution, rng):
    formatter = string.Formatter()  # sink
    function = formatter.get_value(solution.strip(), (), sympy.__dict__)
    return function(391) == [17, 23]
