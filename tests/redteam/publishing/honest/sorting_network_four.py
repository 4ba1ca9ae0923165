"""Solution: a sorting network on 4 wires with at most 5 comparators, written "i-j i-j ..."
(honest: tuples of ints, the 0-1 principle over itertools.product, random arrays from rng)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "0-1 2-3 0-2 1-3 1-2"
# wrong: "0-1 1-2 2-3 0-1 1-2"
import itertools

WIRES = 4
MAX_COMPARATORS = 5


def run(network, values):
    values = list(values)
    for i, j in network:
        if values[i] > values[j]:
            values[i], values[j] = values[j], values[i]
    return values


def verify(solution, rng):
    network = []
    for token in solution.split():
        left, dash, right = token.partition("-")
        if not (dash and left.isdigit() and right.isdigit()):
            return False
        i, j = int(left), int(right)
        if not 0 <= i < j < WIRES:
            return False
        network.append((i, j))
    if not 0 < len(network) <= MAX_COMPARATORS:
        return False
    for bits in itertools.product((0, 1), repeat=WIRES):
        if run(network, bits) != sorted(bits):
            return False
    for _ in range(20):
        values = [int(v) for v in rng.integers(-100, 100, size=WIRES)]
        if run(network, values) != sorted(values):
            return False
    return True
