"""A literal the verifier sympifies names the solution: `Poly(answer, x)` sympifies the str.

The admitted literal "Poly(answer, x)" used to admit every compile below it, so the solution's
text (here a call that makes the judge compute the root) became code with it: ACCEPTED on
main before the fix. What an admitted text runs is now checked on its own.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: x - primefactors(1000000016000000063)[0]
import sympy

N = 1000000016000000063


def verify(solution, rng):
    x = sympy.Symbol("x")
    poly = sympy.sympify("Poly(answer, x)", locals={"answer": solution.strip(), "x": x})
    roots = poly.all_roots()
    return poly.degree() == 1 and bool(1 < roots[0] < N and N % roots[0] == 0)
