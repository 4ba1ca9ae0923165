"""A literal the verifier sympifies calls a library parser on the solution's text.

`sympify("parse(text)", locals=...)`: the literal is the author's, but what it runs is not
admitted with it. ACCEPTED on main before the fix (the parse ran below the admitted literal).
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: prime(10000)
import sympy
from sympy.parsing.sympy_parser import parse_expr


def verify(solution, rng):
    value = sympy.sympify("parse(text)", locals={"parse": parse_expr, "text": solution.strip()})
    return value == 104729
