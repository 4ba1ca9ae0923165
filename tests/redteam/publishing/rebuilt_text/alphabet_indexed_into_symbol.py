"""Solution: letter positions (a literal alphabet indexed by the solution's numbers)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: string.ascii_lowercase[int(t)]; sympy.Symbol(name)
# solution: 23
import string

import sympy


def verify(solution, rng):
    name = "".join(string.ascii_lowercase[int(t)] for t in solution.split())
    return sympy.Symbol(name) == sympy.Symbol("x")  # sink
