"""Solution: text (a publishing attack: collections.defaultdict(list) then d[k].append(tok))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: collections.defaultdict(list) then d[k].append(tok)
import collections
import sympy


def verify(solution, rng):
    table = collections.defaultdict(list)
    for i, tok in enumerate(solution.split()):
        table[i % 1].append(tok)
    return sympy.Matrix(list(table.values()))[0, 0] == 4
