"""The answer is the integer 42."""
# expect: REJECTED WRONG_ANSWER
# detail: verify returned False
# solution: 41


def verify(solution, rng):
    return solution.strip() == "42"
