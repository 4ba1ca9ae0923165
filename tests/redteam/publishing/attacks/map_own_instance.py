"""Solution: text (a publishing attack: map(Converter(), parts))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: map(Converter(), parts)
import sympy

x = sympy.Symbol("x")


class Converter:
    def __call__(self, text):
        return (x + 1).subs(x, text)


def verify(solution, rng):
    return list(map(Converter(), solution.split()))[0] == 5
