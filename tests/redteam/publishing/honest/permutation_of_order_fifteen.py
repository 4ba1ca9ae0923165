"""Solution: a permutation of 1..8 in one-line notation (8 integers separated by spaces) that
fixes no point and has order exactly 15 (honest: a small value class with __eq__, __mul__ and
__hash__, composition until the identity)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "2 3 1 5 6 7 8 4"
# wrong: "2 1 4 3 6 5 8 7"
from __future__ import annotations

N = 8
WANTED_ORDER = 15


class Perm:
    def __init__(self, images: tuple[int, ...]):
        self.images = images

    def __mul__(self, other: Perm) -> Perm:
        return Perm(tuple(self.images[i] for i in other.images))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Perm) and self.images == other.images

    def __hash__(self) -> int:
        return hash(self.images)

    def fixed_points(self) -> int:
        return sum(1 for i, image in enumerate(self.images) if i == image)


IDENTITY = Perm(tuple(range(N)))


def order(perm: Perm) -> int:
    power, steps = perm, 1
    while power != IDENTITY:
        power, steps = power * perm, steps + 1
    return steps


def verify(solution, rng):
    try:
        values = [int(token) - 1 for token in solution.split()]
    except ValueError:
        return False
    if sorted(values) != list(range(N)):
        return False
    perm = Perm(tuple(values))
    return perm.fixed_points() == 0 and order(perm) == WANTED_ORDER
