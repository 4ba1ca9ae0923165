"""Unbounded recursion is a runtime error."""
# expect: REJECTED RUNTIME_ERROR
# detail: RecursionError


def verify(solution, rng):
    def down(n):
        return down(n + 1)

    return down(0)
