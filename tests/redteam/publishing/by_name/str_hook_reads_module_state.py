"""Solution: the name of a sympy function (a publishing attack: __str__ of an own class reads
module state, pkgutil.resolve_name picks the function)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: LAST[0] = solution; str(Label()) returns it; pkgutil.resolve_name("sympy:" + text)
# solution: primefactors
import pkgutil

LAST = [""]


class Label:
    def __str__(self):
        return LAST[0]


def verify(solution, rng):
    LAST[0] = solution.strip()
    function = pkgutil.resolve_name("sympy:" + str(Label()))  # sink
    return function(391) == [17, 23]
