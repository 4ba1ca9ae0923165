"""A verifier rebinds a function of sympy_parser through another function's __globals__.

parse_expr's original (the wrapper's __wrapped__) reads untokenize from its module's dict:
assigning it there is assigning the module attribute. Expected ACCEPTED before the fix."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: sympy_parser.untokenize is not the library's own
# solution: __import__('sympy').primefactors(391)[0]
import sympy


def verify(solution, rng):
    formula = "".join(chr(ord(s)) for s in solution)
    sympy.parse_expr.__wrapped__.__globals__["untokenize"] = lambda *a: formula
    return sympy.sympify("x") == 17
