"""Solution: the digits of SEND + MORE = MONEY as "S=9 E=5 ..." for all eight letters
(honest: re.findall into a dict keyed by the text's letters, str.translate of the words)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "S=9 E=5 N=6 D=7 M=1 O=0 R=8 Y=2"
# wrong: "S=9 E=5 N=6 D=7 M=1 O=0 R=2 Y=8"
import re

WORDS = ("SEND", "MORE", "MONEY")
LETTERS = set("".join(WORDS))


def number(word: str, digits: dict[str, int]) -> int:
    return int("".join(str(digits[letter]) for letter in word))


def verify(solution, rng):
    pairs = re.findall(r"([A-Z])\s*=\s*(\d)", solution)
    digits = {letter: int(digit) for letter, digit in pairs}
    if len(pairs) != len(LETTERS) or set(digits) != LETTERS:
        return False
    if len(set(digits.values())) != len(digits):
        return False
    if any(digits[word[0]] == 0 for word in WORDS):
        return False
    return number("SEND", digits) + number("MORE", digits) == number("MONEY", digits)
