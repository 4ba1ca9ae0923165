"""Bookkeeping of one Lean job and the verdicts that do not depend on a particular step."""

from __future__ import annotations

import dataclasses
import re
import time

from judge import JUDGE_VERSION
from judge.lean.limits import RunResult
from judge.lean.toolchain import Toolchain
from judge.verdict import Reason, Verdict, judge_error, rejected

FAKE_VERSION_SUFFIX = "+FAKE-lean-toolchain"


@dataclasses.dataclass(slots=True)
class JobRun:
    """Mutable bookkeeping for one job: budget, timings, peak memory."""

    toolchain: Toolchain
    time_limit_s: float
    memory_limit_mb: int
    started: float = dataclasses.field(default_factory=time.monotonic)
    peak_memory_mb: float = 0.0
    build_time_s: float = 0.0
    kernel_time_s: float | None = None

    def remaining(self) -> float:
        return self.time_limit_s - (time.monotonic() - self.started)

    def record(self, result: RunResult) -> None:
        self.peak_memory_mb = max(self.peak_memory_mb, result.peak_memory_mb)

    def finish(self, verdict: Verdict) -> Verdict:
        detail = verdict.detail
        version = verdict.judge_version
        if self.toolchain.is_fake:
            # Never let a replayed result pass for a verification.
            detail = f"[FAKE Lean toolchain, test fixture] {detail}"
            version = f"{JUDGE_VERSION}{FAKE_VERSION_SUFFIX}"
        return dataclasses.replace(
            verdict,
            detail=detail,
            judge_version=version,
            wall_time_s=time.monotonic() - self.started,
            max_memory_mb=self.peak_memory_mb or None,
            build_time_s=round(self.build_time_s, 3) if self.build_time_s else None,
            kernel_time_s=self.kernel_time_s,
        )


def limit_verdict(run: JobRun, result: RunResult, phase: str) -> Verdict | None:
    if result.spawn_error is not None:
        return judge_error(f"the Lean sandbox could not start ({result.spawn_error})")
    if result.timed_out:
        return rejected(
            Reason.TIME_LIMIT, f"{phase} did not finish within the {run.time_limit_s:g} s limit"
        )
    if result.memory_exceeded:
        return rejected(
            Reason.MEMORY_LIMIT, f"{phase} used more than the {run.memory_limit_mb} MB limit"
        )
    return None


# What a rejection may echo of the probe's report (names chosen by the solution's own code, which
# could encode any file it can read): a few plain names, each short.
MAX_SHOWN_AXIOMS = 5
MAX_SHOWN_NAME = 60
_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_'!?]*(?:\.[A-Za-z_0-9][A-Za-z0-9_'!?]*)*$")
UNUSUAL_NAME = "(an axiom with an unusual name)"


def shown_axiom_names(names: tuple[str, ...]) -> tuple[str, ...]:
    """The probe's names as a verdict may show them: plain ASCII names, capped in count/length."""
    shown: list[str] = []
    for name in names[:MAX_SHOWN_AXIOMS]:
        if not _PLAIN_NAME.match(name):
            name = UNUSUAL_NAME
        elif len(name) > MAX_SHOWN_NAME:
            name = name[: MAX_SHOWN_NAME - 1] + "…"
        if name not in shown:
            shown.append(name)
    return tuple(shown)


def axiom_verdict(offending: tuple[str, ...] | None, permitted: tuple[str, ...]) -> Verdict:
    allowed = ", ".join(permitted)
    if not offending:
        return rejected(
            Reason.AXIOM_VIOLATION,
            f"the answer rests on an axiom outside the allowlist ({allowed})",
        )
    shown = shown_axiom_names(offending)
    more = len(offending) - min(len(offending), MAX_SHOWN_AXIOMS)
    detail = f"the answer rests on axioms outside the allowlist ({allowed}): " + ", ".join(shown)
    if more:
        detail += f" and {more} more"
    if any("._native." in name or name.startswith("_native.") for name in offending):
        detail += (
            "; native_decide and other native computation cannot be checked by a kernel and "
            "are not accepted: use decide"
        )
    elif "sorryAx" in offending:
        detail += "; the proof contains sorry"
    return rejected(Reason.AXIOM_VIOLATION, detail, axioms=shown)
