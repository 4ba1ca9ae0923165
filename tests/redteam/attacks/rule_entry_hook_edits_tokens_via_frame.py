"""Code of the verifier's inside an admitted sympify edits the parser's token list.

A key's ``__eq__`` runs while ``auto_symbol`` builds its list of tokens; it reads that list
from the caller's frame and puts the solution's text in front of it. Everything the guard
checked held (a literal, sympy's own transformations and functions), and the compile was
sympy's own: ACCEPTED on main before the fix. The compile is now checked to be built from the
admitted literal, whoever changed what went into it.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: refused to compile text that is not a literal
# solution: primefactors(1000000016000000063)[0]
import sys

import sympy

N = 1000000016000000063
TEXT = []


class Key:
    def __hash__(self):
        return hash("x")

    def __eq__(self, other):
        tokens = sys._getframe(1).f_locals.get("result")
        if isinstance(tokens, list) and not tokens:
            tokens.append((1, TEXT[0]))
            tokens.extend([(54, "+"), (2, "0"), (54, "*")])
        return False


def verify(solution, rng):
    TEXT.append(solution.strip())
    value = int(sympy.sympify("x", locals={Key(): 0}))
    return 1 < value < N and N % value == 0
