"""Solution: text (a publishing attack: concurrent.futures executor.map(str.strip, parts))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: concurrent.futures executor.map(str.strip, parts)
import sympy
import concurrent.futures


def verify(solution, rng):
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        parts = list(pool.map(str.strip, solution.split(",")))
    return sympy.Matrix([parts])[0, 0] == 4
