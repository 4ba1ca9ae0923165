"""Solution: integers, one per line (honest: stores into the verifier's own instances, class,
function, lists, dicts and numpy arrays; the class of a parsed value compared and named)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import dataclasses
import decimal

import numpy as np


@dataclasses.dataclass
class Tally:
    total: int = 0


class Counter:
    seen = 0

    def __init__(self):
        self.values = []

    def add(self, value):
        self.values.append(value)
        Counter.seen += 1


def check(values):
    check.calls = getattr(check, "calls", 0) + 1
    return sum(values) == 10


def verify(solution, rng):
    values = [int(t) for t in solution.split()]
    tally = Tally()
    counter = Counter()
    grid = np.zeros((2, 2))
    table = {}
    for i, value in enumerate(values):
        tally.total += value
        counter.add(value)
        grid[i % 2, i // 2] = value
        table[i] = value
    if any(type(v) is not int or type(v).__name__ != "int" for v in values):
        return False
    with decimal.localcontext(prec=50):
        exact = decimal.Decimal(tally.total) / 3
    return check(values) and grid.sum() == 10 and len(table) == len(values) and exact > 0
