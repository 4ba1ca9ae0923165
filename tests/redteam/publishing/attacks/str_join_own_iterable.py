"""Solution: text (a publishing attack: ''.join(Own(solution)) with an own __iter__ that subs)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: ''.join(Own(solution)) with an own __iter__ that subs
import sympy

x = sympy.Symbol("x")


class Parts:
    def __init__(self, text):
        self.text = text

    def __iter__(self):
        yield str((x + 1).subs(x, self.text))


def verify(solution, rng):
    return "".join(Parts(solution)) == "5"
