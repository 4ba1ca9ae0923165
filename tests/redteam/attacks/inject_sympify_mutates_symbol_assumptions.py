"""A verifier that sympifies its input; the solution makes the verifier's own `x` zero.

Symbols are cached: `x` in the solution is the verifier's `x`. `(x._assumptions.update(zero=True),
0)[1]` names nothing the word check refuses, yet `simplify(0 - x**2) == 0` then holds: this was
ACCEPTED. sympify's input may now hold no attribute access, lambda, walrus or comprehension.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: (x._assumptions.update(zero=True), 0)[1]
import sympy


def verify(solution, rng):
    x = sympy.Symbol("x")
    answer = sympy.sympify(solution)
    return sympy.simplify(answer - x**2) == 0
