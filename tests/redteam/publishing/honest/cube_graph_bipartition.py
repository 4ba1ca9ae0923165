"""Solution: a bipartition of the 3-cube's vertices 0..7 as "A: ...; B: ..." so that every edge
joins A to B (honest: partition/split on ';' and ':', a dict of sides, bit tricks for edges)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "A: 0 3 5 6; B: 1 2 4 7"
# wrong: "A: 0 1 2 3; B: 4 5 6 7"
VERTICES = range(8)
EDGES = [(v, v ^ (1 << bit)) for v in VERTICES for bit in range(3) if v < v ^ (1 << bit)]


def parse_sides(text: str) -> dict[int, str] | None:
    side_of: dict[int, str] = {}
    for part in text.split(";"):
        label, colon, members = part.partition(":")
        label = label.strip()
        if not colon or label not in ("A", "B"):
            return None
        for member in members.split():
            if not member.isdigit() or int(member) in side_of:
                return None
            side_of[int(member)] = label
    return side_of


def verify(solution, rng):
    side_of = parse_sides(solution)
    if side_of is None or sorted(side_of) != list(VERTICES):
        return False
    return all(side_of[u] != side_of[v] for u, v in EDGES)
