"""A verifier reaches sympy_parser through attrgetter's class and rebinds stringify_expr.

type(operator.attrgetter(...)) is the by-name resolver under another name (outside red team 2,
F1/F2, case rebind_module_via_attrgetter_class): ACCEPTED before the fix."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: sympy_parser.stringify_expr is not the library's own
# solution: __import__('sympy').primefactors(391)[0]
import operator

import sympy

GETTER = type(operator.attrgetter("real"))
PATH = "".join(["parsing.", "sympy_", "parser"])


def verify(solution, rng):
    formula = "".join(chr(ord(s)) for s in solution)
    GETTER(PATH)(sympy).stringify_expr = lambda *a: formula
    return sympy.sympify("x") == 17
