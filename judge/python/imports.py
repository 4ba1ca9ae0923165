"""The import allowlist of a Python verifier, defined once.

The publishing check (``judge/python/static``), the run-time import guard of the harness
(``judge/python/harness.py``, which loads this file by path inside the sandbox: standard
library only, no imports of the ``judge`` package) and the sandbox's root filesystem
(``judge/sandbox/rootfs.py``, which binds exactly these packages) all read these names.
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
