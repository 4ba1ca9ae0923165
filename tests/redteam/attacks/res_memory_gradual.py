"""Memory growing slowly past the budget."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED MEMORY_LIMIT
# memory_limit_mb: 64
def verify(solution, rng):
    hoard = []
    while True:
        hoard.append(b"x" * 100_000)
