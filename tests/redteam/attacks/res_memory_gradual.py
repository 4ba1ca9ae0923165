"""Memory growing slowly past the budget."""


# expect: REJECTED MEMORY_LIMIT
# memory_limit_mb: 64
def verify(solution, rng):
    hoard = []
    while True:
        hoard.append(b"x" * 100_000)
