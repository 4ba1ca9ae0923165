"""Solution: text (a publishing attack: threading.Thread(target=rows.append, args=(solution,)))."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: threading.Thread(target=rows.append, args=(solution,))
import sympy
import threading


def verify(solution, rng):
    rows = []
    worker = threading.Thread(target=rows.append, args=(solution,))
    worker.start()
    worker.join()
    return sympy.Matrix([rows])[0, 0] == 4
