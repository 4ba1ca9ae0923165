"""Solution: code points of a formula (red team 2 F1+F2: the parser module reached by
attrgetter's class with a literal path, then rebound)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: m = type(attrgetter("real"))("parsing.sympy_parser")(sympy); m.stringify_expr = ...
# solution: primefactors(391)[0]
import operator

import sympy

PATH = "".join(["parsing.", "sympy_", "parser"])


def verify(solution, rng):
    formula = "".join(chr(int(t)) for t in solution.split())
    m = operator.attrgetter(PATH)(sympy)
    m.stringify_expr = lambda *a: formula  # sink
    return sympy.sympify("x") == 17
