"""Lazy imports of library submodules inside verify work under the import allowlist and guard
(scipy.stats generates code with exec; libraries probe optional dependencies)."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: ACCEPTED
# time_limit_s: 30
# memory_limit_mb: 512
import importlib

NAMES = [
    "scipy.stats",
    "scipy.signal",
    "scipy.spatial",
    "scipy.interpolate",
    "scipy.fft",
    "scipy.ndimage",
    "scipy.sparse.linalg",
    "scipy.sparse.csgraph",
    "scipy.cluster",
    "scipy.io",
    "scipy.odr",
    "scipy.constants",
    "scipy.differentiate",
    "scipy.optimize",
    "numpy.polynomial",
    "numpy.fft",
    "numpy.testing",
    "numpy.ma",
    "numpy.lib.recfunctions",
    "sympy.stats",
    "sympy.physics.mechanics",
    "sympy.combinatorics",
    "sympy.ntheory",
    "sympy.solvers.diophantine",
    "sympy.geometry",
    "sympy.logic",
    "sympy.matrices",
    "sympy.parsing.sympy_parser",
    "sympy.plotting",
    "sympy.crypto",
    "sympy.codegen",
    "mpmath.calculus",
    "mpmath.functions",
    "fractions",
    "decimal",
    "statistics",
    "itertools",
    "functools",
    "heapq",
    "bisect",
    "collections",
    "math",
    "cmath",
    "json",
    "re",
    "string",
    "unicodedata",
    "hashlib",
    "random",
    "secrets",
    "datetime",
    "zoneinfo",
    "typing",
    "dataclasses",
    "enum",
    "graphlib",
]


def verify(solution, rng):
    failed = []
    for name in NAMES:
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
    if failed:
        raise RuntimeError("; ".join(failed))
    import scipy.stats

    return bool(scipy.stats.norm.cdf(0) == 0.5)
