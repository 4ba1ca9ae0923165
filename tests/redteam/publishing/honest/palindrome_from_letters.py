"""Solution: a palindrome that uses exactly the letters of "aabbccd" (honest: Counter of the
text, slicing, str methods)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "abcdcba"
# wrong: "abcdabc"
from collections import Counter

LETTERS = "aabbccd"


def verify(solution, rng):
    word = solution.strip().lower()
    if not word.isalpha():
        return False
    if Counter(word) != Counter(LETTERS):
        return False
    return word == word[::-1]
