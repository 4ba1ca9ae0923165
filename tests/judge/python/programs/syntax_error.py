"""Does not compile."""
# expect: REJECTED RUNTIME_ERROR
# detail: SyntaxError


def verify(solution, rng)
    return True
