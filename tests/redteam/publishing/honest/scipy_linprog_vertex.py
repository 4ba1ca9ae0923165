"""Solution: "x y", an optimal point of: maximise 3x + 2y subject to x + y <= 4, x + 3y <= 6,
x <= 3, x, y >= 0 (honest: Fractions for feasibility, scipy.optimize.linprog for the optimum)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "3 1"
# wrong: "2 2"
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog

A_UB = [[1, 1], [1, 3], [1, 0]]
B_UB = [4, 6, 3]
OBJECTIVE = [3, 2]


def optimum() -> float:
    result = linprog(c=-np.array(OBJECTIVE), A_ub=A_UB, b_ub=B_UB, bounds=[(0, None), (0, None)])
    return -result.fun


def verify(solution, rng):
    try:
        point = [Fraction(token) for token in solution.split()]
    except (ValueError, ZeroDivisionError):
        return False
    if len(point) != 2 or min(point) < 0:
        return False
    for row, bound in zip(A_UB, B_UB):
        if sum(a * v for a, v in zip(row, point)) > bound:
            return False
    value = sum(c * v for c, v in zip(OBJECTIVE, point))
    return abs(float(value) - optimum()) < 1e-7
