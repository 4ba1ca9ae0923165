"""Solution format: one expression F in the variable x, written like Python, whose derivative
is x**2 * exp(x). Allowed: numbers, x, + - * / **, parentheses and functions such as
exp, log, sin, cos, sqrt. A constant of integration may be added or left out.

Example of the format (not a solution): ``x**3/3 + sin(x)``.
"""

import sympy

from formalmarket_verify import ParseError, parse_math

X = sympy.Symbol("x", real=True)
INTEGRAND = X**2 * sympy.exp(X)


def verify(solution, rng):
    # The library's parser builds the sympy expression from a checked syntax tree (never eval),
    # within a size budget; its result is safe to hand to any sympy function.
    try:
        candidate = parse_math(solution, {"x": X}, max_length=500, max_nodes=200)
    except ParseError:
        return False
    if isinstance(candidate, tuple):
        return False
    try:
        difference = sympy.diff(candidate, X) - INTEGRAND
        # A numeric check at random points first (cheap, reproducible from the seed) ...
        for point in rng.uniform(-3.0, 3.0, size=8):
            value = complex(difference.evalf(subs={X: float(point)}))
            scale = 1 + abs(complex(INTEGRAND.evalf(subs={X: float(point)})))
            if not abs(value) <= 1e-8 * scale:
                return False
        # ... then the exact one.
        return sympy.simplify(difference) == 0
    except Exception:
        return False
