"""Solution: text (a publishing attack: a nested generator yields the solution)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: a nested generator yields the solution
import sympy


def verify(solution, rng):
    def parts():
        yield from solution.split()

    return sympy.Tuple(*parts())[0] == 4
