"""A verifier hands nsimplify a constant whose str() is the solution's text.

nsimplify names each constant by its str() in mpmath.identify's formula, then sympifies the
formula; the guard admitted any plain name there, calls included, so the solution's
``prime(100000)`` was computed by sympify: ACCEPTED on main before the fix. The formula may
now name only identify's functions and sympy's own real constants.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: refused to sympify text
# solution: prime(100000)

import mpmath
import sympy

STORE = {}


class Named(sympy.NumberSymbol):
    is_real = True
    is_positive = True
    is_number = True

    def _as_mpf_val(self, prec):
        return mpmath.mpf(3)._mpf_

    def _sympystr(self, printer):
        return STORE["text"]

    def __hash__(self):
        return 7


def verify(solution, rng):
    STORE["text"] = solution.strip()
    candidate = int(sympy.nsimplify(sympy.Float(3.0), constants=[Named()]))
    return sympy.isprime(candidate) and sympy.primepi(candidate) == 100000
