"""Solution: ten colours 0, 1 or 2 separated by commas, the colour of vertices 0..9 of the
Petersen graph, with no edge joining two vertices of one colour (honest: an edge list built
from module constants, a helper that parses, set comprehension)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "0,1,0,1,2,1,2,2,0,0"
# wrong: "0,1,0,1,2,1,2,0,0,0"
OUTER = [(i, (i + 1) % 5) for i in range(5)]
SPOKES = [(i, i + 5) for i in range(5)]
INNER = [(5 + i, 5 + (i + 2) % 5) for i in range(5)]
EDGES = OUTER + SPOKES + INNER


def parse_colours(text: str) -> list[int] | None:
    fields = [field.strip() for field in text.split(",")]
    if len(fields) != 10 or not all(field in {"0", "1", "2"} for field in fields):
        return None
    return [int(field) for field in fields]


def verify(solution, rng):
    colours = parse_colours(solution)
    if colours is None:
        return False
    clashes = {(u, v) for u, v in EDGES if colours[u] == colours[v]}
    return not clashes
