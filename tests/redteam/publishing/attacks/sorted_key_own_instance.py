"""Solution: text (a publishing attack: sorted(parts, key=Converter()))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: sorted(parts, key=Converter())
import sympy

x = sympy.Symbol("x")


class Converter:
    def __call__(self, text):
        return (x + 1).subs(x, text)


def verify(solution, rng):
    return sorted(solution.split(), key=Converter())[0] == "4"
