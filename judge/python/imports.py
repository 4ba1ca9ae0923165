"""The import allowlists of a Python verifier, defined once.

Two lists, one per reader. ``import_allowed`` (the standard library, minus a few, and the
listed packages) is what may be imported while a verdict runs, the libraries' own internal
imports included: the run-time import guard of the harness (``judge/python/harness.py``,
which loads this file by path inside the sandbox: standard library only, no imports of the
``judge`` package) and the sandbox's root filesystem (``judge/sandbox/rootfs.py``, which
binds exactly these packages) read it. ``verifier_import_allowed`` is the positive list of
what a verifier's own source may import, checked at publishing (``judge/python/static``):
computation and data modules only. The rest of the standard library (``pkgutil``, ``pydoc``,
``importlib``, ``os``, ``threading``, ``logging``...) hands out objects by name, reaches the
host, or has nothing to compute; sympy or numpy may still import it internally.
"""

import sys

# Third-party packages installed in the host's site-packages and bound into the sandbox.
THIRD_PARTY_PACKAGES = ("numpy", "scipy", "sympy", "mpmath")
# FormalMarket's own verifier library (the safe expression parser), shipped with the project.
VERIFIER_LIBRARY = "formalmarket_verify"
ALLOWED_THIRD_PARTY = frozenset((*THIRD_PARTY_PACKAGES, VERIFIER_LIBRARY))
# Standard-library packages that make no sense in a verifier and widen the surface.
DENIED_STDLIB = frozenset(
    {"idlelib", "tkinter", "turtle", "turtledemo", "ensurepip", "venv", "test"}
)
ALLOWED_TOP_LEVEL = (frozenset(sys.stdlib_module_names) | ALLOWED_THIRD_PARTY) - DENIED_STDLIB


def import_allowed(name: str) -> bool:
    """Whether a verifier may import the module ``name`` (dotted names by their top level)."""
    top = name.partition(".")[0]
    if top.startswith("_sysconfigdata_"):  # stdlib's build data, imported by sysconfig
        return True
    return top in ALLOWED_TOP_LEVEL


# What a verifier's own source may import (issue 25, section 2): numbers, text, data
# structures, the listed packages. Adding a module here is a security decision: it must hand
# out no object chosen by a string (no resolver by name, no namespace), run no text as code,
# and reach nothing outside the verdict.
VERIFIER_STDLIB = frozenset(
    {"__future__", "abc", "array", "ast", "base64", "binascii", "bisect", "calendar",
     "cmath", "collections", "colorsys", "contextlib", "copy", "csv", "dataclasses",
     "datetime", "decimal", "difflib", "enum", "fractions", "functools", "graphlib",
     "hashlib", "heapq", "hmac", "io", "itertools", "json", "keyword", "math", "numbers",
     "operator", "pprint", "random", "re", "statistics", "string", "struct", "sys",
     "textwrap", "time", "traceback", "types", "typing", "unicodedata", "warnings", "zlib"}
)  # fmt: skip


def verifier_import_allowed(name: str) -> bool:
    """Whether a verifier's own source may import ``name`` (dotted names by their top level)."""
    top = name.partition(".")[0]
    return top in VERIFIER_STDLIB or top in ALLOWED_THIRD_PARTY


def verifier_module_public(name: str) -> bool:
    """Whether every part of the dotted module name is a public identifier: a library's API,
    not its scripts or internals. The publishing check imports a verifier's modules on the
    host to resolve attribute paths by identity, and importing ``numpy.f2py.__main__`` runs
    f2py's command line there (with the web process's ``sys.argv``, then ``SystemExit``)."""
    if name == "__future__":
        return True
    return all(part.isidentifier() and not part.startswith("_") for part in name.split("."))
