"""A verifier rebinds sympy_parser.stringify_expr on a module it got by a literal dotted path.

sympy.external.import_module returns sympy.parsing.sympy_parser; stringify_expr then returns
the solution's text, and sympify of the literal "x" compiled it under the literal's admission
(outside red team 2, F1, case rebind_sympy_external_import_module_literal): ACCEPTED before
the fix. An admission now holds only while the namespaces on its path are the zygote's."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: sympy_parser.stringify_expr is not the library's own
# solution: __import__('sympy').primefactors(391)[0]
import sympy
import sympy.external

PARSER = sympy.external.import_module(
    "sympy.parsing.sympy_parser", import_kwargs={"fromlist": ["parse_expr"]}
)


def verify(solution, rng):
    formula = "".join(chr(ord(s)) for s in solution)
    PARSER.stringify_expr = lambda *a: formula
    return sympy.sympify("x") == 17
