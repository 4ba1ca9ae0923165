"""The judge's budgets and caps: one object, per language, shared by publishing and the judge.

An author declares a budget (``time_limit_s``, ``memory_limit_mb``); the server allows a range
per language. Publishing refuses a budget outside the range, and the judge refuses one too
(a JUDGE_ERROR, never a silent clamp): a verdict is always computed under exactly the budget
the author published. The web and the workers build this object from Django settings
(``verifiers.budgets.get_budgets``); the standalone judge (``python -m judge``) builds it from
the same environment variables with :meth:`Budgets.from_env`.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping

from judge.verdict import MAX_SOLUTION_BYTES

# Below these a verifier cannot even start (the harness and the job need a few MB and ms).
PYTHON_MIN_TIME_S = 0.05
PYTHON_MIN_MEMORY_MB = 32
LEAN_MIN_TIME_S = 0.05
LEAN_MIN_MEMORY_MB = 32
DEFAULT_PYTHON_MAX_TIME_S = 60.0
DEFAULT_PYTHON_MAX_MEMORY_MB = 1024
DEFAULT_LEAN_MAX_TIME_S = 600.0
DEFAULT_LEAN_MAX_MEMORY_MB = 8192
# Reference plus wrong samples of one dry run, each kind.
MAX_SAMPLES = 10


@dataclasses.dataclass(frozen=True, slots=True)
class LanguageBudget:
    """The range of budgets one language's judge accepts (bounds included)."""

    language: str
    min_time_s: float
    max_time_s: float
    min_memory_mb: int
    max_memory_mb: int

    def time_refusal(self, time_limit_s: object) -> str | None:
        """Why ``time_limit_s`` is not allowed, or None."""
        if (
            isinstance(time_limit_s, bool)
            or not isinstance(time_limit_s, int | float)
            or not math.isfinite(time_limit_s)
            or not self.min_time_s <= time_limit_s <= self.max_time_s
        ):
            return f"must be in [{self.min_time_s:g}, {self.max_time_s:g}] seconds"
        return None

    def memory_refusal(self, memory_limit_mb: object) -> str | None:
        """Why ``memory_limit_mb`` is not allowed, or None."""
        if (
            isinstance(memory_limit_mb, bool)
            or not isinstance(memory_limit_mb, int)
            or not self.min_memory_mb <= memory_limit_mb <= self.max_memory_mb
        ):
            return f"must be in [{self.min_memory_mb}, {self.max_memory_mb}] MB"
        return None

    def refusal(self, *, time_limit_s: object, memory_limit_mb: object) -> str | None:
        """Why this budget is out of range (one sentence), or None when it is allowed."""
        reasons = [
            f"{name} {why}"
            for name, why in (
                ("time_limit_s", self.time_refusal(time_limit_s)),
                ("memory_limit_mb", self.memory_refusal(memory_limit_mb)),
            )
            if why is not None
        ]
        if not reasons:
            return None
        return f"the {self.language} budget is out of range: " + "; ".join(reasons)


@dataclasses.dataclass(frozen=True, slots=True)
class Budgets:
    """Every limit of the judge that publishing must agree with."""

    python: LanguageBudget
    lean: LanguageBudget
    max_solution_bytes: int = MAX_SOLUTION_BYTES
    max_samples: int = MAX_SAMPLES

    @classmethod
    def from_caps(
        cls,
        *,
        python_max_time_s: float,
        python_max_memory_mb: int,
        lean_max_time_s: float,
        lean_max_memory_mb: int,
    ) -> Budgets:
        """The budgets for these server caps; a cap below its language's minimum is refused."""
        python = LanguageBudget(
            "python",
            PYTHON_MIN_TIME_S,
            float(python_max_time_s),
            PYTHON_MIN_MEMORY_MB,
            int(python_max_memory_mb),
        )
        lean = LanguageBudget(
            "lean",
            LEAN_MIN_TIME_S,
            float(lean_max_time_s),
            LEAN_MIN_MEMORY_MB,
            int(lean_max_memory_mb),
        )
        for budget in (python, lean):
            if budget.max_time_s < budget.min_time_s or budget.max_memory_mb < budget.min_memory_mb:
                raise ValueError(f"the {budget.language} caps are below the judge's minimum")
        return cls(python=python, lean=lean)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Budgets:
        """The standalone judge's budgets: the same variables Django's settings read."""
        env = os.environ if env is None else env
        return cls.from_caps(
            python_max_time_s=env_number(env, "JUDGE_PYTHON_MAX_TIME_S", DEFAULT_PYTHON_MAX_TIME_S),
            python_max_memory_mb=int(
                env_number(env, "JUDGE_PYTHON_MAX_MEMORY_MB", DEFAULT_PYTHON_MAX_MEMORY_MB)
            ),
            lean_max_time_s=env_number(env, "JUDGE_LEAN_MAX_TIME_S", DEFAULT_LEAN_MAX_TIME_S),
            lean_max_memory_mb=int(
                env_number(env, "JUDGE_LEAN_MAX_MEMORY_MB", DEFAULT_LEAN_MAX_MEMORY_MB)
            ),
        )

    def for_language(self, language: str) -> LanguageBudget:
        """The budget range of ``language`` ("python" or "lean"); KeyError for another."""
        budgets = {"python": self.python, "lean": self.lean}
        return budgets[language]


def env_number(env: Mapping[str, str], name: str, default: float) -> float:
    """A positive finite number from the environment variable ``name``, else ``default``;
    ValueError naming the variable for anything else. The judge's one parser of numbers."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number, got {raw!r}") from exc
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number, got {raw!r}")
    return value
