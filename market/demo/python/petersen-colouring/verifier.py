"""Solution format: ten colours c0 c1 ... c9, each 1, 2 or 3, separated by whitespace; ci is the
colour of vertex i of the Petersen graph numbered as in the statement (outer cycle 0-1-2-3-4,
spokes i to i+5, inner pentagram 5-7-9-6-8). Adjacent vertices must get different colours.

Example of the format (not a solution): ``1 2 3 1 2 3 1 2 3 1``.
"""

OUTER = [(i, (i + 1) % 5) for i in range(5)]
SPOKES = [(i, i + 5) for i in range(5)]
INNER = [(5 + i, 5 + (i + 2) % 5) for i in range(5)]
EDGES = OUTER + SPOKES + INNER


def verify(solution, rng):
    if not isinstance(solution, str) or len(solution) > 200:
        return False
    parts = solution.split()
    if len(parts) != 10 or any(part not in ("1", "2", "3") for part in parts):
        return False
    colours = [int(part) for part in parts]
    return all(colours[u] != colours[v] for u, v in EDGES)
