"""Solution: text (honest: text pieces in a list, compared with literals only)."""


# ruff: noqa -- an example verifier, linted only for what it is meant to show
def verify(solution, rng):
    words = []
    for word in solution.split():
        words.append(word.lower())
    return sorted(words) == ["blue", "green", "red"]
