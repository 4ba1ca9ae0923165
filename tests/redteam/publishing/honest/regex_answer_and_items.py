"""Solution: text (honest: a regex fullmatch, then dict items of parsed numbers)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import re


def verify(solution, rng):
    pairs = {}
    for part in solution.split(";"):
        match = re.fullmatch(r"\s*([a-z])\s*=\s*(-?\d+)\s*", part)
        if match is None:
            return False
        pairs[match.group(1)] = int(match.group(2))
    return sorted(pairs.items()) == [("a", 1), ("b", 2)]
