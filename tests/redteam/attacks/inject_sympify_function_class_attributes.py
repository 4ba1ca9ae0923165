"""A verifier that sympifies its input; the solution builds a class with attributes it chose.

`Function('f', is_Add=True)` is an undefined function whose class says it is an Add, so
`f(x**2) - x**2` flattens to `x**2 - x**2` = 0: only names, a string, calls and a keyword, no
refused word (ACCEPTED before the fix). sympify's input may no longer hold keyword arguments
(sympy's transformations never produce them).
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: Function('f', is_Add=True)(x**2)
import sympy


def verify(solution, rng):
    x = sympy.Symbol("x")
    answer = sympy.sympify(solution)
    return sympy.simplify(answer - x**2) == 0
