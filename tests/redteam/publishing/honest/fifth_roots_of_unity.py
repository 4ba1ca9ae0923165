"""Solution: the five complex fifth roots of unity, one per line, in Python's complex syntax
such as 0.309+0.951j (honest: complex() of each line, cmath, distinctness by rounding)."""

# ruff: noqa -- an example verifier, linted only for what it is meant to show
# right: "1+0j\n0.30901699437494745+0.9510565162951535j\n-0.8090169943749473+0.5877852522924732j\n-0.8090169943749476-0.587785252292473j\n0.30901699437494723-0.9510565162951536j"
# wrong: "1+0j\n1+0j\n-1+0j\n1j\n-1j"
import cmath

DEGREE = 5
TOLERANCE = 1e-9


def verify(solution, rng):
    roots = []
    for line in solution.strip().splitlines():
        try:
            roots.append(complex(line.strip().replace(" ", "")))
        except ValueError:
            return False
    if len(roots) != DEGREE:
        return False
    if any(not cmath.isfinite(z) or abs(z**DEGREE - 1) > TOLERANCE for z in roots):
        return False
    distinct = {(round(z.real, 6), round(z.imag, 6)) for z in roots}
    return len(distinct) == DEGREE
