"""Solution: a closed form in n for 1**2 + 2**2 + ... + n**2 (honest: parse_math, then subs at
integers drawn from rng and compared with a direct sum)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "n*(n+1)*(2*n+1)/6"
# wrong: "n**3/3"
import sympy
from formalmarket_verify import ParseError, parse_math

n = sympy.Symbol("n", integer=True, positive=True)
TRIALS = 12


def direct(k: int) -> int:
    return sum(i * i for i in range(1, k + 1))


def verify(solution, rng):
    try:
        formula = parse_math(solution, {"n": n})
    except ParseError:
        return False
    if isinstance(formula, tuple):
        return False
    points = [1, 2, 3] + [int(k) for k in rng.integers(4, 10_000, size=TRIALS)]
    for k in points:
        if sympy.simplify(formula.subs(n, k) - direct(k)) != 0:
            return False
    return True
