"""Solution: text (a publishing attack: f-string of the solution into Poly)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: f-string of the solution into Poly
import sympy

x = sympy.Symbol("x")


def verify(solution, rng):
    return sympy.Poly(f"{solution}", x).degree() == 4
