"""Solution: text (a publishing attack: heapq.heappush(heap, tok))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: heapq.heappush(heap, tok)
import heapq
import sympy


def verify(solution, rng):
    heap = []
    for tok in solution.split():
        heapq.heappush(heap, tok)
    return sympy.Matrix([heap])[0, 0] == 4
