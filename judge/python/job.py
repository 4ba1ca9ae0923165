"""The input of a Python verdict."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True, slots=True)
class PythonJob:
    """One verdict to compute: the verifier's source, the solution and the author's budget.

    ``seed`` None means the judge draws one from a secure source (and records it in the
    verdict). Limits are clamped into the server's caps (JUDGE_PYTHON_MAX_TIME_S,
    JUDGE_PYTHON_MAX_MEMORY_MB).
    """

    verifier_source: str
    solution: bytes | str
    seed: int | None = None
    time_limit_s: float = 10.0
    memory_limit_mb: int = 256
