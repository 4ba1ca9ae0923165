"""Spins forever."""
# expect: REJECTED TIME_LIMIT
# time_limit_s: 0.5


def verify(solution, rng):
    while True:
        pass
