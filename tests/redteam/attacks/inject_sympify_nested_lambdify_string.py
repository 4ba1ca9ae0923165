"""A verifier that sympifies its input; the solution hides its payload in a string for lambdify.

The outer text is plain mathematics (names, a string, calls), so the checks made for sympify's
input pass; lambdify then compiles the string itself, where attribute access was allowed:
`(x._assumptions.update(zero=True), 0)[1]` made the verifier's `x` zero (ACCEPTED). Code that
was compiled at run time may no longer compile more code.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: lambdify(x, "(x._assumptions.update(zero=True), 0)[1]")(x)
import sympy


def verify(solution, rng):
    x = sympy.Symbol("x")
    answer = sympy.sympify(solution)
    return sympy.simplify(answer - x**2) == 0
