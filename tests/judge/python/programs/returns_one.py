"""Returns 1, which is not True."""
# expect: REJECTED WRONG_ANSWER
# detail: verify returned a int, not True


def verify(solution, rng):
    return 1
