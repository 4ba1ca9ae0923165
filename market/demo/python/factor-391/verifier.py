"""Solution format: two integers a and b separated by whitespace, with 1 < a <= b and a * b = 391.

Example of the format (not a solution): ``3 5``.
"""

import re

_SOLUTION = re.compile(r"\s*(\d{1,6})\s+(\d{1,6})\s*")


def verify(solution, rng):
    if not isinstance(solution, str):
        return False
    match = _SOLUTION.fullmatch(solution)
    if match is None:
        return False
    a, b = int(match.group(1)), int(match.group(2))
    return 1 < a <= b and a * b == 391
