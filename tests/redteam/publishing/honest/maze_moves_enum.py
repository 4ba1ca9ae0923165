"""Solution: a shortest path from S to G in MAZE as letters U, D, L, R (honest: an Enum of
moves looked up by the text's letters, a BFS for the shortest length)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "RRDDRD"
# wrong: "RRDDDR"
import enum
from collections import deque

MAZE = ["S..#", "##.#", "....", ".##G"]


class Move(enum.Enum):
    U = (-1, 0)
    D = (1, 0)
    L = (0, -1)
    R = (0, 1)


def find(mark: str) -> tuple[int, int]:
    for r, row in enumerate(MAZE):
        if mark in row:
            return r, row.index(mark)
    raise LookupError(mark)


def open_cell(r: int, c: int) -> bool:
    return 0 <= r < len(MAZE) and 0 <= c < len(MAZE[0]) and MAZE[r][c] != "#"


def shortest() -> int:
    start, goal = find("S"), find("G")
    seen = {start: 0}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for move in Move:
            nxt = (r + move.value[0], c + move.value[1])
            if open_cell(*nxt) and nxt not in seen:
                seen[nxt] = seen[(r, c)] + 1
                queue.append(nxt)
    return seen[goal]


def verify(solution, rng):
    path = solution.strip()
    if not path or any(letter not in Move.__members__ for letter in path):
        return False
    r, c = find("S")
    for letter in path:
        dr, dc = Move[letter].value
        r, c = r + dr, c + dc
        if not open_cell(r, c):
            return False
    return (r, c) == find("G") and len(path) == shortest()
