"""Solution: a JSON list of 4 lists of 4 integers 1..4 completing the 4x4 sudoku GIVEN
(0 = blank) (honest: json.loads, type(x) is int checks, sets over rows, columns and boxes)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "[[1,2,3,4],[3,4,1,2],[2,1,4,3],[4,3,2,1]]"
# wrong: "[[1,2,3,4],[3,4,2,1],[2,1,4,3],[4,3,1,2]]"
import json

GIVEN = [[1, 0, 0, 4], [0, 4, 0, 0], [0, 0, 4, 0], [4, 0, 0, 1]]
DIGITS = {1, 2, 3, 4}


def groups(grid):
    yield from grid
    yield from ([grid[r][c] for r in range(4)] for c in range(4))
    for top in (0, 2):
        for left in (0, 2):
            yield [grid[top + r][left + c] for r in range(2) for c in range(2)]


def verify(solution, rng):
    try:
        grid = json.loads(solution)
    except json.JSONDecodeError:
        return False
    if type(grid) is not list or len(grid) != 4:
        return False
    for row in grid:
        if type(row) is not list or len(row) != 4:
            return False
        if any(type(cell) is not int for cell in row):
            return False
    for r in range(4):
        for c in range(4):
            if GIVEN[r][c] and GIVEN[r][c] != grid[r][c]:
                return False
    return all(set(group) == DIGITS for group in groups(grid))
