"""Solution: three lattice points "(x,y) (x,y) (x,y)" of a right triangle with hypotenuse 5 and
area 6 (honest: re.findall of integer pairs, Fraction shoelace, squared side lengths)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "(0,0) (3,0) (0,4)"
# wrong: "(0,0) (4,0) (0,4)"
import re
from fractions import Fraction

POINT = re.compile(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")


def squared(p, q):
    return (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2


def area(a, b, c):
    return abs(Fraction((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]), 2))


def verify(solution, rng):
    if POINT.sub("", solution).strip():
        return False
    points = [(int(x), int(y)) for x, y in POINT.findall(solution)]
    if len(points) != 3:
        return False
    a, b, c = points
    sides = sorted([squared(a, b), squared(b, c), squared(a, c)])
    return sides[0] + sides[1] == sides[2] == 25 and area(a, b, c) == 6
