"""The verdict contract shared by the Python and Lean judges (see DESIGN.md, "The judge")."""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Any

from judge import JUDGE_VERSION

MAX_SOLUTION_BYTES = 65_536


class Outcome(enum.StrEnum):
    ACCEPTED = "ACCEPTED"
    REJECTED = "REJECTED"
    JUDGE_ERROR = "JUDGE_ERROR"


class Reason(enum.StrEnum):
    WRONG_ANSWER = "WRONG_ANSWER"
    RUNTIME_ERROR = "RUNTIME_ERROR"
    TIME_LIMIT = "TIME_LIMIT"
    MEMORY_LIMIT = "MEMORY_LIMIT"
    INVALID_SOLUTION = "INVALID_SOLUTION"
    COMPILE_ERROR = "COMPILE_ERROR"
    AXIOM_VIOLATION = "AXIOM_VIOLATION"
    STATEMENT_MISMATCH = "STATEMENT_MISMATCH"


# Process exit status of `python -m judge`.
EXIT_ACCEPTED = 0
EXIT_REJECTED = 1
EXIT_USAGE = 2
EXIT_JUDGE_ERROR = 3


@dataclasses.dataclass(frozen=True, slots=True)
class Verdict:
    """One judge decision. ``reason`` is None exactly when the verdict is ACCEPTED."""

    verdict: Outcome
    reason: Reason | None
    detail: str
    seed: int | None = None
    wall_time_s: float = 0.0
    cpu_time_s: float | None = None
    max_memory_mb: float | None = None
    axioms: tuple[str, ...] | None = None  # Lean only
    judge_version: str = JUDGE_VERSION
    # Lean only, when the comparator reports them separately.
    build_time_s: float | None = None
    kernel_time_s: float | None = None
    # What a solver may be shown when it differs from ``detail``: a verifier's exception
    # message can hold its hidden values, so a solver of a private verifier sees the type and
    # a generic line; the author (dry runs) sees ``detail``. None: ``detail`` is fine for both.
    solver_detail: str | None = None

    @property
    def detail_for_solver(self) -> str:
        """The detail to show someone who may not read the verifier's source."""
        return self.solver_detail if self.solver_detail is not None else self.detail

    @property
    def is_accepted(self) -> bool:
        return self.verdict is Outcome.ACCEPTED

    @property
    def exit_status(self) -> int:
        return {
            Outcome.ACCEPTED: EXIT_ACCEPTED,
            Outcome.REJECTED: EXIT_REJECTED,
            Outcome.JUDGE_ERROR: EXIT_JUDGE_ERROR,
        }[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "verdict": self.verdict.value,
            "reason": self.reason.value if self.reason else None,
            "detail": self.detail,
            "seed": self.seed,
            "wall_time_s": round(self.wall_time_s, 6),
            "cpu_time_s": self.cpu_time_s,
            "max_memory_mb": self.max_memory_mb,
            "judge_version": self.judge_version,
        }
        if self.axioms is not None:
            data["axioms"] = list(self.axioms)
        if self.build_time_s is not None:
            data["build_time_s"] = self.build_time_s
        if self.kernel_time_s is not None:
            data["kernel_time_s"] = self.kernel_time_s
        if self.solver_detail is not None:
            data["solver_detail"] = self.solver_detail
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)


def accepted(detail: str = "accepted", **kwargs: Any) -> Verdict:
    return Verdict(Outcome.ACCEPTED, None, detail, **kwargs)


def rejected(reason: Reason, detail: str, **kwargs: Any) -> Verdict:
    return Verdict(Outcome.REJECTED, reason, detail, **kwargs)


def judge_error(detail: str, **kwargs: Any) -> Verdict:
    return Verdict(Outcome.JUDGE_ERROR, None, detail, **kwargs)


def check_solution_bytes(data: bytes) -> str | Verdict:
    """Decode a solution, or return the INVALID_SOLUTION verdict (over 64 KB, or not UTF-8)."""
    if len(data) > MAX_SOLUTION_BYTES:
        return rejected(
            Reason.INVALID_SOLUTION,
            f"solution is {len(data)} bytes; the limit is {MAX_SOLUTION_BYTES} bytes",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return rejected(Reason.INVALID_SOLUTION, f"solution is not valid UTF-8 (byte {exc.start})")
