"""Solution: text (a publishing attack: for k, v in {'k': T}.items())."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: for k, v in {'k': T}.items()
import sympy

T = sympy.Tuple(1)


def verify(solution, rng):
    for key, head in {"k": T}.items():
        return (head + tuple(solution.split(",")))[1] == 4
