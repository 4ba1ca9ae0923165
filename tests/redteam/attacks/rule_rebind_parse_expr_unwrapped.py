"""A verifier restores parse_expr's unwrapped original and rebinds standard_transformations.

sympify reads sympy_parser.parse_expr and standard_transformations when it runs: with the
original in place the nested call was not the checked entry, and a transformation of the
verifier's returned the solution's tokens under sympify's admission. Expected ACCEPTED
before the fix."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not the library's own (rebound
# solution: __import__('sympy').primefactors(391)[0]
import io
import tokenize

import sympy
from sympy.parsing import sympy_parser


def verify(solution, rng):
    formula = "".join(chr(ord(s)) for s in solution)
    tokens = [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(formula).readline)]

    def spelled(_tokens, local_dict, global_dict):
        return tokens

    sympy_parser.parse_expr = sympy_parser.parse_expr.__wrapped__
    sympy_parser.standard_transformations = (*sympy_parser.standard_transformations, spelled)
    return sympy.sympify("x") == 17
