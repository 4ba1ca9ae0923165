"""Solution: text (a publishing attack: min(re.findall(...), default=T) is T, counted as data)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: min(re.findall(...), default=T) is T, counted as data
import sympy
import re

T = sympy.Tuple(1)


def verify(solution, rng):
    head = min(re.findall("zzz", solution), default=T)
    return (head + tuple(solution.split(",")))[1] == 4
