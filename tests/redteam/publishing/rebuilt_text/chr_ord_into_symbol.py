"""Solution: a symbol's name (chr(ord(s)) launders the text in one call)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: chr(ord(s)) for s in solution; sympy.Symbol(name)
# solution: x
import sympy


def verify(solution, rng):
    name = "".join(chr(ord(s)) for s in solution.strip())
    return sympy.Symbol(name) == sympy.Symbol("x")  # sink
