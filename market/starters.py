"""Starting points shown on the pages: a verifier to edit on the new-verifier form, and a Lean
solution skeleton of the right shape for a problem's ``Spec``."""

from __future__ import annotations

import re

PYTHON_VERIFIER_STARTER = '''"""Solution format: two integers a and b separated by a space,
with 1 < a <= b and a * b = 391.

Example of the format (not a solution): ``3 5``.
"""


def verify(solution, rng):
    # Parse defensively: bad input returns False, it never raises. For formulas, use
    # formalmarket_verify.parse_math (see the guide), never eval or sympy.sympify.
    if not isinstance(solution, str) or len(solution) > 1000:
        return False
    parts = solution.split()
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
        return False
    a, b = int(parts[0]), int(parts[1])
    # Check the whole claim. Need random test cases? Draw them from rng only, for example
    # n = int(rng.integers(1, 100)), so that every verdict is reproducible from its seed.
    return 1 < a <= b and a * b == 391
'''

LEAN_VERIFIER_STARTER = """-- The module Verifier defines Spec: a statement to prove (Spec : Prop)
-- or an object to produce with its proof (Spec : Type, usually a subtype).
-- Use abbrev so that tactics such as decide and norm_num can see through it.
-- Solvers submit `answer : Spec`.
abbrev Spec : Prop := 2 + 2 = 4
"""

VERIFIER_STARTERS = {"python": PYTHON_VERIFIER_STARTER, "lean": LEAN_VERIFIER_STARTER}

_SPEC = re.compile(r"^\s*(?:@\[[^\]]*\]\s*)?(?:abbrev|def)\s+Spec\b[^:]*:\s*(\w+)", re.M)
_IMPORT = re.compile(r"^import\s+\S+", re.M)


def starter_solution(verifier_source: str) -> str:
    """``import Verifier`` plus the verifier's imports, and ``answer`` shaped for ``Spec``."""
    imports = ["import Verifier"] + [
        line for line in _IMPORT.findall(verifier_source) if line.split()[1] != "Verifier"
    ]
    match = _SPEC.search(verifier_source)
    kind = match.group(1) if match else ""
    if kind == "Prop":
        body = "theorem answer : Spec := by\n  sorry  -- replace with your proof"
    elif kind == "Type":
        body = "def answer : Spec := ⟨sorry, by decide⟩  -- your witness, then its proof"
    else:
        body = "def answer : Spec := sorry  -- replace with your answer"
    return "\n".join(dict.fromkeys(imports)) + "\n\n" + body + "\n"
