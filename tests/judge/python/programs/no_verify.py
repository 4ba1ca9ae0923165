"""Defines no verify."""
# expect: REJECTED RUNTIME_ERROR
# detail: verifier defines no callable verify(solution, rng)


def check(solution, rng):
    return True
