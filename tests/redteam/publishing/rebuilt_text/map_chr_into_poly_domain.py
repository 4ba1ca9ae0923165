"""Solution: code points of a Poly domain (map(chr, ...) hands chr on as a function; the domain picks the arithmetic)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: map(chr, codes); sympy.Poly(..., domain=name)
# solution: 81 81
import sympy

X = sympy.Symbol("x")


def verify(solution, rng):
    codes = [int(t) for t in solution.split()]
    name = "".join(map(chr, codes))
    return sympy.Poly(X**2 - 2, X, domain=name).degree() == 2  # sink
