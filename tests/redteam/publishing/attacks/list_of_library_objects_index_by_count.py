"""Solution: text (a publishing attack: [T][text.count('x')])."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: [T][text.count('x')]
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    options = [T]
    head = options[solution.count("@")]
    return (head + tuple(solution.split(",")))[1] == 4
