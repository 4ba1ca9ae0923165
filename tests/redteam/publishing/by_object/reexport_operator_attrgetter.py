"""Solution: code points of a helper's name (red team 2 F2: operator reached as
mpmath.math2.operator)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: mpmath.math2.operator.attrgetter(name)(sympy)
# solution: 112 114 105 109 101 102 97 99 116 111 114 115
import mpmath.math2
import sympy


def verify(solution, rng):
    name = "".join(chr(int(t)) for t in solution.split())
    fn = mpmath.math2.operator.attrgetter(name)(sympy)  # sink
    return fn(391)[0] == 17
