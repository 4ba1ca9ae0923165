"""Solution: text (honest: rows[-1].append(int(tok)) then Matrix(rows))."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import sympy


def verify(solution, rng):
    rows = [[]]
    for tok in solution.split():
        if tok == ";":
            rows.append([])
        else:
            rows[-1].append(int(tok))
    return sympy.Matrix(rows).det() == 1
