"""Solution: five integers (spaces) whose mean is 10, median 8 and mode 6, all between 1 and 30
(honest: statistics on ints, multimode, early returns)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "6 6 8 12 18"
# wrong: "6 6 8 12 20"
import statistics

COUNT = 5


def verify(solution, rng):
    tokens = solution.split()
    if len(tokens) != COUNT or not all(t.isdigit() for t in tokens):
        return False
    data = sorted(int(t) for t in tokens)
    if not all(1 <= v <= 30 for v in data):
        return False
    if statistics.mean(data) != 10 or statistics.median(data) != 8:
        return False
    return statistics.multimode(data) == [6]
