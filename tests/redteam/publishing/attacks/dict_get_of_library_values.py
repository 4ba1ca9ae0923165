"""Solution: text (a publishing attack: {'k': T}.get(text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: {'k': T}.get(text)
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    table = {"k": T}
    head = table.get(solution.split(",")[0])
    return (head + tuple(solution.split(",")[1:]))[0] == 4
