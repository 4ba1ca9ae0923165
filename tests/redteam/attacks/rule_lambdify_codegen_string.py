"""A verifier lambdifies a sympy codegen node holding the solution's text.

lambdify prints `sympy.codegen.ast.String` verbatim into the source it execs: every Symbol and
Function name was checked, but this node's text was not, and the solution's code ran (the judge
computed the 10000th prime): ACCEPTED on main before the fix. lambdify now prints only
sympy's own expression types, whose names are checked.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: refused to lambdify a String
# solution: __import__('sympy').prime(10000)
import sympy
from sympy.codegen.ast import String


def verify(solution, rng):
    constant = sympy.lambdify([], String(solution.strip()))
    return constant() == 104729
