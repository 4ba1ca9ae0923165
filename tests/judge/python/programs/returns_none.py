"""Forgets to return."""
# expect: REJECTED WRONG_ANSWER
# detail: verify returned None


def verify(solution, rng):
    solution.strip() == "42"
