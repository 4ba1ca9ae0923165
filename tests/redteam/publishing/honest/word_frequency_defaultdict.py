"""Solution: a sentence of at most 8 words in which "the" is the most frequent word and occurs
exactly 3 times (honest: defaultdict(int) counts, max with counts.get, heapq of the counts)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "the cat saw the dog and the bird"
# wrong: "a cat saw the dog and the bird"
import heapq
from collections import defaultdict

MAX_WORDS = 8


def verify(solution, rng):
    words = solution.lower().split()
    if not 0 < len(words) <= MAX_WORDS or not all(word.isalpha() for word in words):
        return False
    counts = defaultdict(int)
    for word in words:
        counts[word] += 1
    largest = heapq.nlargest(2, counts.values()) + [0]
    if largest[0] == largest[1]:
        return False  # a tie: no single most frequent word
    return max(counts, key=counts.get) == "the" and counts["the"] == 3
