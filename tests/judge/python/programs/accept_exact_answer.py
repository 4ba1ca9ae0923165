"""The answer is the integer 42."""
# expect: ACCEPTED
# solution: 42\n


def verify(solution, rng):
    return solution.strip() == "42"
