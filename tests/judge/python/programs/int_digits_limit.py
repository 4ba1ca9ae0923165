"""Python's 4300-digit int() limit stays on: a huge number is a runtime error."""
# expect: REJECTED RUNTIME_ERROR
# detail: ValueError


def verify(solution, rng):
    return int("7" * 60000) > 0
