"""Solution: 'NAME n' (variant: var imported from sympy.core.symbol)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: var(name) rebinds STRICT
# solution: STRICT 5
from sympy.core.symbol import var

STRICT = False


def verify(solution, rng):
    name, n = solution.split()
    var(name)  # sink
    return bool(STRICT) or 391 % int(n) == 0 and int(n) not in (1, 391)
