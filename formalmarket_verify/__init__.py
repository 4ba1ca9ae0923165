"""FormalMarket's verifier library: turn solution text into values without evaluating it.

Importable inside the judge's sandbox (and on the import allowlist), and trusted by the
publishing checks: the result of :func:`parse_math` is a sympy object that the library built
itself from a validated syntax tree, so a verifier may use it with any sympy, numpy or scipy
function. The documentation is on the site, at ``/docs/verifiers/``.

    from formalmarket_verify import ParseError, parse_math

    def verify(solution, rng):
        x = sympy.Symbol("x")
        try:
            expr = parse_math(solution, {"x": x})
        except ParseError:
            return False
        return sympy.simplify(expr - sympy.sin(x) ** 2) == 0
"""

from formalmarket_verify.parse import DEFAULT_FUNCTIONS, Budget, ParseError, parse_math

__all__ = ["DEFAULT_FUNCTIONS", "Budget", "ParseError", "parse_math"]
