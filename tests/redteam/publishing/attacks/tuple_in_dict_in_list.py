"""Solution: text (a publishing attack: rows = [{'v': tok}]; Matrix([[r['v'] for r in rows]]))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: rows = [{'v': tok}]; Matrix([[r['v'] for r in rows]])
import sympy


def verify(solution, rng):
    rows = [{"v": tok} for tok in solution.split()]
    return sympy.Matrix([[row["v"] for row in rows]])[0, 0] == 4
