"""Solution: "x=<int>, y=<int>" with x + y = 5, x*y = 6 and x < y (honest: a regex per
assignment into a dict, sympy.solve of the system, a set of tuples)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "x=2, y=3"
# wrong: "x=3, y=2"
import re

import sympy

x, y = sympy.symbols("x y")
SYSTEM = [sympy.Eq(x + y, 5), sympy.Eq(x * y, 6)]
ASSIGNMENT = re.compile(r"\s*([xy])\s*=\s*(-?\d+)\s*")


def verify(solution, rng):
    values: dict[str, int] = {}
    for part in solution.split(","):
        match = ASSIGNMENT.fullmatch(part)
        if match is None or match.group(1) in values:
            return False
        values[match.group(1)] = int(match.group(2))
    if set(values) != {"x", "y"} or not values["x"] < values["y"]:
        return False
    roots = {(int(s[x]), int(s[y])) for s in sympy.solve(SYSTEM, [x, y], dict=True)}
    return (values["x"], values["y"]) in roots
