"""What the verifier guide page (/docs/verifiers/) shows, read from the rules themselves.

The lists come from the modules that enforce them (the import allowlist, the publishing
check's reviewed operations, the library's grammar and budget), so the page cannot drift.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def get_python_verifier_guide() -> dict[str, Any]:
    """The guide's data: allowed imports, the library's functions and budget, the lists."""
    from formalmarket_verify import DEFAULT_FUNCTIONS, Budget
    from judge.python.imports import THIRD_PARTY_PACKAGES, VERIFIER_LIBRARY, VERIFIER_STDLIB
    from judge.python.static import rules

    budget = Budget()
    return {
        "third_party": THIRD_PARTY_PACKAGES,
        "library": VERIFIER_LIBRARY,
        "functions": sorted(DEFAULT_FUNCTIONS),
        "budget": [
            (field.name, getattr(budget, field.name)) for field in dataclasses.fields(budget)
        ],
        "sanitisers": sorted(rules.SANITISERS | rules.LIBRARY_PARSERS),
        "propagators": sorted(rules.PROPAGATORS),
        "methods": sorted(rules.BUILTIN_METHODS),
        "refused": sorted({*rules.REFUSED, *rules.LITERAL_ONLY}),
        "by_name": sorted(rules.BY_NAME),
        "stdlib": sorted(VERIFIER_STDLIB - {"__future__"}),
    }
