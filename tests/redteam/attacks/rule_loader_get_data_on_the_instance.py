"""A verifier replaces get_data on a genuine SourceFileLoader instance and runs exec_module.

The guard admitted a module body for the import system's own loader type at a library path,
without looking at the instance or at the bytes: the solution's text ran as "sympy's module
body" (outside red team, R3, via pkgutil.get_loader and via sys.path_importer_cache):
ACCEPTED before the fix. A module's source is now compiled only when it equals the library
file at the loader's path, exec_module counts as an import only when the import system called
it, and the loader instance may carry nothing but its name and path.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: InjectionBlocked
# solution: import sympy; answer = sympy.primefactors(391)[0]
import pkgutil
import sys
import types

N = 391
STORE = {}


class Box:
    @property
    def text(self):
        return STORE["text"]


def run(loader):
    loader.get_data = lambda path: Box().text.encode()
    module = types.ModuleType("sympy")
    loader.exec_module(module)
    return module.answer


def verify(solution, rng):
    STORE["text"] = solution
    found = []
    for get in (
        lambda: pkgutil.get_loader("sympy"),
        lambda: sys.path_importer_cache[sys.path[-1]].find_spec("sympy").loader,
    ):
        try:
            found.append(run(get()))
        except Exception:
            pass
    return any(1 < candidate < N and N % candidate == 0 for candidate in found)
