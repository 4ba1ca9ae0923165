"""Solution: text (a publishing attack: an ExceptionGroup carries T)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: an ExceptionGroup carries T
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    try:
        raise ExceptionGroup("g", [ValueError(T)])
    except* ValueError as group:
        head = group.exceptions[0].args[0]
    return (head + tuple(solution.split(",")))[1] == 4
