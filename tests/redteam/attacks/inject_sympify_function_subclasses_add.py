"""A verifier that sympifies its input; the solution subclasses Add through sympy's Function.

`Function('f', (Add,))` is a class whose base the solution chose: `f(x**2)` is an Add, so
`f(x**2) - x**2` is 0 (ACCEPTED before the fix; `FunctionClass('f', (Add,), {})` too).
`Function`/`WildFunction` may only be called with a lone name in sympify's input, and
`FunctionClass` and dict literals not at all.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: Function('f', (Add,))(x**2)
import sympy


def verify(solution, rng):
    x = sympy.Symbol("x")
    answer = sympy.sympify(solution)
    return sympy.simplify(answer - x**2) == 0
