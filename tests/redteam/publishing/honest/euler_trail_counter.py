"""Solution: an Euler trail of the house-with-a-cross graph as vertex labels separated by
"-" (honest: Counters of frozenset edges compared, membership in a set of module letters)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "a-b-c-d-e-c-a-d-b"
# wrong: "a-b-c-d-e-c-a-b-d"
from collections import Counter

EDGES = ("ab", "bc", "cd", "da", "ac", "bd", "ce", "de")
EXPECTED = Counter(frozenset(edge) for edge in EDGES)
VERTICES = set("".join(EDGES))


def verify(solution, rng):
    walk = [label.strip() for label in solution.split("-")]
    if any(label not in VERTICES for label in walk):
        return False
    used = Counter(frozenset((u, v)) for u, v in zip(walk, walk[1:]))
    return used == EXPECTED
