"""Solution: the names of the items to pack, comma-separated (capacity 15), for the largest
total value (honest: csv.reader over io.StringIO, a dict of the author's items, a DP optimum)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "B,C,D,E"
# wrong: "A,B,C"
import csv
import io

ITEMS = {"A": (12, 4), "B": (2, 2), "C": (1, 1), "D": (1, 2), "E": (4, 10)}
CAPACITY = 15


def best_value() -> int:
    table = [0] * (CAPACITY + 1)
    for weight, value in ITEMS.values():
        for room in range(CAPACITY, weight - 1, -1):
            table[room] = max(table[room], table[room - weight] + value)
    return table[CAPACITY]


def verify(solution, rng):
    rows = list(csv.reader(io.StringIO(solution.strip())))
    if len(rows) != 1:
        return False
    names = [name.strip() for name in rows[0]]
    if len(set(names)) != len(names) or not set(names) <= set(ITEMS):
        return False
    weight = sum(ITEMS[name][0] for name in names)
    value = sum(ITEMS[name][1] for name in names)
    return weight <= CAPACITY and value == best_value()
