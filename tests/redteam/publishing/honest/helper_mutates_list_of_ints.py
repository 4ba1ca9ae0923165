"""Solution: text (honest: a helper appends an int to the caller's list)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy


def push(values, text):
    values.append(int(text))


def verify(solution, rng):
    values = []
    for tok in solution.split():
        push(values, tok)
    return sympy.Matrix([values]).rank() == 1
