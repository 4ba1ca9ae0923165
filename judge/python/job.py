"""The input of a Python verdict."""

from __future__ import annotations

import dataclasses

from judge.budgets import LanguageBudget


@dataclasses.dataclass(frozen=True, slots=True)
class PythonJob:
    """One verdict to compute: the verifier's source, the solution and the author's budget.

    ``seed`` None means the judge draws one from a secure source (and records it in the
    verdict). A budget outside ``budget`` (None: the server's caps from the environment,
    ``Budgets.from_env``) is refused with a JUDGE_ERROR, never clamped.
    """

    verifier_source: str
    solution: bytes | str
    seed: int | None = None
    time_limit_s: float = 10.0
    memory_limit_mb: int = 256
    budget: LanguageBudget | None = None
