"""Solution: the name of a sympy function (a publishing attack: str.format called unbound with
a template built in a helper, the text laundered through a module list)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: PARTS.append(solution); template() joins PARTS; str.format(template(), sympy)
# solution: primefactors
import sympy

PARTS = []


def template():
    return "{0." + "".join(PARTS) + "}"


def verify(solution, rng):
    PARTS.append(solution.strip())
    return str.format(template(), sympy).startswith("<function")  # sink
