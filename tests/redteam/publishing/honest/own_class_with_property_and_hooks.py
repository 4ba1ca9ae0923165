"""Solution: an integer n (honest: an own class with a property, __str__ and a _sympystr hook
over module constants and its own numbers)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy

N = 391
CACHE = {"calls": 0}


class Target:
    def __init__(self, value):
        self.value = value

    @property
    def modulus(self):
        return N

    def __str__(self):
        return f"Target({self.value})"

    def _sympystr(self, printer):
        return "T" + str(self.value)


def verify(solution, rng):
    n = int(solution)
    CACHE["calls"] += 1
    target = Target(n)
    shown = sympy.sstr(Target(7))
    return (
        1 < n < target.modulus and target.modulus % n == 0 and shown == "T7" and str(target) != ""
    )
