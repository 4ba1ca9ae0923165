"""Solution: the vertices of the convex hull of POINTS in counter-clockwise order, one "x y"
per line, starting anywhere (honest: a frozen dataclass Point with __sub__, cross products,
rotations compared with lists of own instances)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "4 0\n4 4\n0 4\n0 0"
# wrong: "0 0\n0 4\n4 4\n4 0"
from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    x: int
    y: int

    def __sub__(self, other: "Point") -> "Point":
        return Point(self.x - other.x, self.y - other.y)

    def cross(self, other: "Point") -> int:
        return self.x * other.y - self.y * other.x


POINTS = [Point(0, 0), Point(4, 0), Point(4, 4), Point(0, 4), Point(2, 2), Point(1, 3), Point(3, 1)]


def hull(points: list[Point]) -> list[Point]:
    ordered = sorted(points, key=lambda p: (p.x, p.y))
    lower: list[Point] = []
    upper: list[Point] = []
    for p in ordered:
        while len(lower) >= 2 and (lower[-1] - lower[-2]).cross(p - lower[-2]) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(ordered):
        while len(upper) >= 2 and (upper[-1] - upper[-2]).cross(p - upper[-2]) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def verify(solution, rng):
    claimed = []
    for line in solution.strip().splitlines():
        fields = line.split()
        if len(fields) != 2:
            return False
        try:
            claimed.append(Point(int(fields[0]), int(fields[1])))
        except ValueError:
            return False
    expected = hull(POINTS)
    if len(claimed) != len(expected):
        return False
    rotations = [expected[i:] + expected[:i] for i in range(len(expected))]
    return claimed in rotations
