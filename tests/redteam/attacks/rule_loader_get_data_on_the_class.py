"""A verifier replaces get_data on the import system's loader CLASS, then imports a module.

The import system itself then reads the solution's text as the source of a stdlib module not
yet imported, and compiled it as that module's body, the guard recognising the import system's
own loaders by type and path only. A module's source is now compiled only when it equals the
library file at the loader's path (read by the guard), whoever read it.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: InjectionBlocked
# solution: import sympy; answer = sympy.primefactors(391)[0]
import importlib
import importlib.machinery
import sys

N = 391
STORE = {}


class Box:
    @property
    def text(self):
        return STORE["text"]


def verify(solution, rng):
    STORE["text"] = solution
    loaders = importlib.machinery.SourceFileLoader
    loaders.get_data = lambda self, path: Box().text.encode()  # a .pyc of text fails: source
    for name in ("colorsys", "sndhdr", "this", "tabnanny", "wave"):
        if name in sys.modules:
            continue
        try:
            candidate = importlib.import_module(name).answer
        except Exception:
            continue
        return 1 < candidate < N and N % candidate == 0
    return False
