"""Solution: one line of plain text (a publishing attack, red team 2 F1: a module obtained as a
value by sympy.external.import_module, its stringify_expr rebound to return the solution's text,
which sympify then runs as code; the text laundered by chr(ord(s)))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: PARSER = import_module("sympy.parsing.sympy_parser"); PARSER.stringify_expr = lambda: text
# solution: primefactors(391)[0]
import sympy
import sympy.external

PARSER = sympy.external.import_module(
    "sympy.parsing.sympy_parser", import_kwargs={"fromlist": ["parse_expr"]}
)


def verify(solution, rng):
    formula = "".join(chr(ord(s)) for s in solution)
    PARSER.stringify_expr = lambda *a: formula  # sink
    return sympy.sympify("x") == 17
