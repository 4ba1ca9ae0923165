"""Solution: an operation name (add or mul) and two integers (honest: getattr and attrgetter with
literal names; the solution's word picks from the verifier's own table)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
import math
import operator

GCD = "gcd"
OPERATIONS = {"add": operator.add, "mul": operator.mul}


def verify(solution, rng):
    word, left, right = solution.split()
    if word not in OPERATIONS:
        return False
    x, y = int(left), int(right)
    isqrt = getattr(math, "isqrt")
    gcd = getattr(math, GCD)
    reals = sorted([complex(y, 1), complex(x, 2)], key=operator.attrgetter("real"))
    result = OPERATIONS[word](x, y)
    return result == 12 and isqrt(16) == 4 and gcd(x, y) >= 1 and len(reals) == 2
