"""Solution: code points of a formula (red team 2 F1: import_module called in verify)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: m = import_module(...) in verify; m.stringify_expr = lambda: text
# solution: primefactors(391)[0]
import sympy
import sympy.external


def verify(solution, rng):
    formula = "".join(chr(int(t)) for t in solution.split())
    m = sympy.external.import_module("sympy.parsing.sympy_parser")
    m.stringify_expr = lambda *a: formula  # sink
    return sympy.sympify("x") == 17
