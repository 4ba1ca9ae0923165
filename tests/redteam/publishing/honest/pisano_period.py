"""Solution: the period of the Fibonacci numbers modulo 10, a positive integer (honest:
isdigit, a while loop over pairs, early return)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "60"
# wrong: "20"
MODULUS = 10


def period(modulus: int) -> int:
    a, b, steps = 0, 1, 0
    while True:
        a, b, steps = b, (a + b) % modulus, steps + 1
        if (a, b) == (0, 1):
            return steps


def verify(solution, rng):
    text = solution.strip()
    if not text.isdigit():
        return False
    return int(text) == period(MODULUS)
