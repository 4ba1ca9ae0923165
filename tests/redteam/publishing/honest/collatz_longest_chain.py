"""Solution: a JSON integer, the start below 100 with the longest Collatz chain (honest:
json.loads, type(x) is int, functools.lru_cache)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "97"
# wrong: "27"
import functools
import json

LIMIT = 100


@functools.lru_cache(maxsize=None)
def steps(n: int) -> int:
    if n == 1:
        return 0
    return 1 + steps(n // 2 if n % 2 == 0 else 3 * n + 1)


def verify(solution, rng):
    try:
        start = json.loads(solution)
    except ValueError:
        return False
    if type(start) is not int or not 1 <= start < LIMIT:
        return False
    best = max(range(1, LIMIT), key=steps)
    return steps(start) == steps(best)
