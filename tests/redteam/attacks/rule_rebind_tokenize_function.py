"""A verifier rebinds a tokenize function that sympy's parser calls.

sympy_parser imported generate_tokens by name, and generate_tokens reads tokenize._tokenize
from its module when it runs: that function then tokenised the solution's text instead of the
literal. Expected ACCEPTED before the fix."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: tokenize._tokenize is not the library's own
# solution: __import__('sympy').primefactors(391)[0]
import io
import tokenize

import sympy

ORIGINAL = tokenize._tokenize


def verify(solution, rng):
    formula = "".join(chr(ord(s)) for s in solution)
    tokenize._tokenize = lambda readline, encoding: ORIGINAL(
        io.StringIO(formula).readline, encoding
    )
    return sympy.sympify("x") == 17
