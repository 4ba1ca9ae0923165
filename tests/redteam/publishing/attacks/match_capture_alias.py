"""Solution: text (a publishing attack: match rows: case [first, *_]: first.append(text))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: match rows: case [first, *_]: first.append(text)
import sympy


def verify(solution, rng):
    rows = [[]]
    match rows:
        case [first, *_]:
            first.append(solution)
    return sympy.Matrix(rows)[0, 0] == 4
