"""What the judge can do here now, per language: read once per request by the API and pages.

A Lean verifier accepts no submissions on a server without the Lean toolchain (its solutions
would stay pending); a language whose judge pool is not warm yet (no worker has set
``formalmarket:judge:warm:<language>:<host>``) still accepts them, with a note that the first
verdicts wait for the judge to start.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifiers.models import Language
from verifiers.selectors import judge_is_warm

JUDGE_STARTING = (
    "the judge is starting: the first verdicts may take up to a minute (your solution is "
    "queued and will be judged)"
)


@dataclass(frozen=True, slots=True)
class JudgeState:
    accepts_submissions: bool
    note: str | None  # None when a verdict arrives as usual


def judge_states() -> dict[str, JudgeState]:
    from verifiers.services.judging import lean_toolchain_status

    states: dict[str, JudgeState] = {}
    for language in Language.values:
        if language == Language.LEAN:
            available, reason = lean_toolchain_status()
            if not available:
                note = f"this server cannot judge Lean solutions now: {reason}"
                states[language] = JudgeState(False, note)
                continue
        warm = judge_is_warm(language)
        states[language] = JudgeState(True, None if warm else JUDGE_STARTING)
    return states
