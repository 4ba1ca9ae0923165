"""Solution: text (a publishing attack: from sympy import sympify inside verify)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: from sympy import sympify inside verify
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    from sympy import sympify as convert

    return convert(solution) == 4
