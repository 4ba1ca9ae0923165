"""Solution: indices (0-based, separated by spaces) of a largest set of pairwise
non-overlapping JOBS (honest: typing.NamedTuple, a greedy optimum, sorted own tuples)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "0 3 7 10"
# wrong: "0 3 7"
from typing import NamedTuple


class Job(NamedTuple):
    start: int
    end: int


JOBS = [
    Job(*pair)
    for pair in [
        (1, 4),
        (3, 5),
        (0, 6),
        (5, 7),
        (3, 9),
        (5, 9),
        (6, 10),
        (8, 11),
        (8, 12),
        (2, 14),
        (12, 16),
    ]
]


def best_count() -> int:
    count, free_at = 0, -1
    for job in sorted(JOBS, key=lambda job: job.end):
        if job.start >= free_at:
            count, free_at = count + 1, job.end
    return count


def verify(solution, rng):
    tokens = solution.split()
    if not all(token.isdigit() for token in tokens):
        return False
    indices = [int(token) for token in tokens]
    if len(set(indices)) != len(indices) or any(i >= len(JOBS) for i in indices):
        return False
    chosen = sorted(JOBS[i] for i in indices)
    for first, second in zip(chosen, chosen[1:]):
        if first.end > second.start:
            return False
    return len(chosen) == best_count()
