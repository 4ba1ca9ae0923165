"""The string "True" is not True."""
# expect: REJECTED WRONG_ANSWER
# detail: verify returned a str, not True


def verify(solution, rng):
    return "True"
