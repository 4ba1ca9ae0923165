"""What a dry run judges: the frozen snapshot of a verifier's draft and its fingerprint.

Pure functions of one row (no query, no write), shared by the publishing service, the dry-run
service, the API's serializers and the author pages.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from verifiers.models import Verifier


def draft_snapshot(verifier: Verifier) -> dict[str, Any]:
    """Everything a dry run judges, frozen: the worker judges this, not the live draft."""
    return {
        "language": verifier.language,
        "source": verifier.draft_source,
        "time_limit_s": float(verifier.time_limit_s),
        "memory_limit_mb": int(verifier.memory_limit_mb),
        "lean_project": verifier.lean_project,
        "reference_solutions": list(verifier.reference_solutions),
        "wrong_solutions": list(verifier.wrong_solutions),
    }


def draft_fingerprint(verifier: Verifier) -> str:
    """sha256 of everything a dry run depends on: changing any of it needs a new dry run."""
    payload = json.dumps(draft_snapshot(verifier), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
