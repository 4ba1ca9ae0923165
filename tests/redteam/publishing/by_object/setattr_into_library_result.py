"""Solution: code points of a formula (variant: setattr with a literal name into a module
reached through a library function's globals-free attribute path)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: setattr(module_value, "stringify_expr", lambda: text)
# solution: primefactors(391)[0]
import sympy
import sympy.core

MODULE = sympy.core.basic


def verify(solution, rng):
    formula = "".join(chr(int(t)) for t in solution.split())
    setattr(MODULE, "stringify_expr", lambda *a: formula)  # sink
    return sympy.sympify("x") == 17
