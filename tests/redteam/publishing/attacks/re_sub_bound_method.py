"""Solution: text (a publishing attack: re.sub(pattern, obj.convert, solution))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: re.sub(pattern, obj.convert, solution)
import sympy
import re

x = sympy.Symbol("x")


class Converter:
    def convert(self, match):
        return str((x + 1).subs(x, match.group(0)))


def verify(solution, rng):
    return re.sub(r".+", Converter().convert, solution) == "5"
