"""Solution: an English-looking anagram of "listen" other than "listen" itself (honest: a
normalising helper applied to a module constant and to the text, compared)."""


# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "silent"
# wrong: "silence"
def normalise(word: str) -> str:
    return "".join(sorted(word.lower()))


TARGET = normalise("listen")


def verify(solution, rng):
    word = solution.strip()
    return word.isalpha() and word.lower() != "listen" and normalise(word) == TARGET
