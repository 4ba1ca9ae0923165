"""The solution builds its function class from a Dummy (or from posify's output): the class
inherits the Dummy's assumptions, false ones included (ACCEPTED before Function required a
string literal)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: Function(Dummy('f'))(x**2)
import sympy


def verify(solution, rng):
    x = sympy.Symbol("x")
    answer = sympy.sympify(solution)
    return sympy.simplify(answer - x**2) == 0
