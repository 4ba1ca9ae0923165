"""Solutions are UTF-8 text."""
# expect: ACCEPTED
# solution: \u00e9\u221e


def verify(solution, rng):
    return solution == "\u00e9\u221e"
