"""Solution: text (honest: zip over two lists of ints into a list of pairs)."""


# ruff: noqa -- an example verifier, linted only for what it is meant to show
def verify(solution, rng):
    left = [int(t) for t in solution.split(";")[0].split()]
    right = [int(t) for t in solution.split(";")[1].split()]
    pairs = []
    for a, b in zip(left, right):
        pairs.append((a, b))
    return sum(a * b for a, b in pairs) == 10
