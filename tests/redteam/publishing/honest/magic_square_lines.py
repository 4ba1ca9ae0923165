"""Solution: a 3x3 magic square of 1..9, one row per line (honest: ints, row/column/diagonal
sums listed by a generator helper, a set of sums)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "2 7 6\n9 5 1\n4 3 8"
# wrong: "1 2 3\n4 5 6\n7 8 9"
from typing import Iterator

SIZE = 3


def lines(square: list[list[int]]) -> Iterator[int]:
    yield from (sum(row) for row in square)
    yield from (sum(square[r][c] for r in range(SIZE)) for c in range(SIZE))
    yield sum(square[i][i] for i in range(SIZE))
    yield sum(square[i][SIZE - 1 - i] for i in range(SIZE))


def verify(solution, rng):
    try:
        square = [[int(cell) for cell in line.split()] for line in solution.strip().splitlines()]
    except ValueError:
        return False
    if len(square) != SIZE or any(len(row) != SIZE for row in square):
        return False
    if sorted(cell for row in square for cell in row) != list(range(1, SIZE * SIZE + 1)):
        return False
    return set(lines(square)) == {SIZE * (SIZE * SIZE + 1) // 2}
