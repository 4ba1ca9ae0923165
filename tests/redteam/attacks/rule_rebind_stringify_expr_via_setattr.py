"""A verifier rebinds stringify_expr through setattr with a literal name.

setattr reached as mpmath.libmp.backend.builtins.setattr (outside red team 2, case
rebind_via_reexported_setattr): ACCEPTED before the fix."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: sympy_parser.stringify_expr is not the library's own
# solution: __import__('sympy').primefactors(391)[0]
import mpmath.libmp.backend as B
import sympy
from sympy.parsing import sympy_parser as sp


def verify(solution, rng):
    formula = "".join(chr(ord(s)) for s in solution)
    B.builtins.setattr(sp, "stringify_expr", lambda *a: formula)
    return sympy.sympify("x") == 17
