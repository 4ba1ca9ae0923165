"""Solution: text (a publishing attack: '%s' % solution into subs)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: '%s' % solution into subs
import sympy

x = sympy.Symbol("x")


def verify(solution, rng):
    return (x + 1).subs(x, "%s" % solution) == 5
