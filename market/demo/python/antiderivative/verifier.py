"""Solution format: one expression F in the variable x, written like Python, whose derivative
is x**2 * exp(x). Allowed: numbers, x, + - * / **, parentheses and functions such as
exp, log, sin, cos, sqrt. A constant of integration may be added or left out.

Example of the format (not a solution): ``x**3/3 + sin(x)``.
"""

import sympy
from sympy.calculus.util import continuous_domain

from formalmarket_verify import ParseError, parse_math

X = sympy.Symbol("x", real=True)
INTEGRAND = X**2 * sympy.exp(X)
# One antiderivative, to compare definite integrals with: F(b) - F(a) must equal K(b) - K(a).
KNOWN = (X**2 - 2 * X + 2) * sympy.exp(X)


def _at(expression, point):
    return complex(expression.evalf(subs={X: point}))


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
        # An antiderivative is continuous on the whole line. A function with jumps has the
        # right derivative wherever it has one and is no antiderivative: F + 5*atan(x) +
        # 5*atan(1/x) is F + 5*pi/2 for x > 0 and F - 5*pi/2 for x < 0. What sympy cannot show
        # continuous everywhere (floor, ceiling: NotImplementedError) is refused too.
        if continuous_domain(candidate, X, sympy.S.Reals) != sympy.S.Reals:
            return False
        # The same from the other side, numerically: F(b) - F(a) is the integral over [a, b],
        # on intervals between sorted random points and across all of them.
        points = sorted(float(p) for p in rng.uniform(-3.0, 3.0, size=6))
        for a, b in [*zip(points, points[1:], strict=False), (points[0], points[-1])]:
            error = (_at(candidate, b) - _at(candidate, a)) - (_at(KNOWN, b) - _at(KNOWN, a))
            if not abs(error) <= 1e-8 * (1 + abs(_at(KNOWN, b)) + abs(_at(KNOWN, a))):
                return False
        # ... then the exact check of the derivative.
        return sympy.simplify(difference) == 0
    except Exception:
        return False
