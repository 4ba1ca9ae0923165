"""The Lean judge: ``lake comparator`` behind a bridge module, sandboxed, with outer limits.

Public API (the rest of the project calls only these):

- :class:`LeanJob` and :func:`judge_lean` -> :class:`judge.verdict.Verdict`
- :func:`toolchain_status` -> :class:`ToolchainStatus` (keep Lean solutions PENDING when
  ``available`` is False, showing ``reason``)
- :func:`static_check` -> :class:`StaticReport` (publishing)
- :func:`prepare_verifier` -> :class:`PreparedVerifier` (publishing, once per verifier version;
  raises :class:`VerifierRejected` for the author, :class:`PreparationFailed` or
  :class:`ToolchainUnavailable` for the platform)

See docs/lean-judge.md for the design.
"""

from judge.lean.allow import STANDARD_AXIOMS, AllowParse, parse_allow_line
from judge.lean.pipeline import LeanJob, judge_lean
from judge.lean.prepare import (
    PreparationFailed,
    PreparedVerifier,
    VerifierRejected,
    prepare_verifier,
)
from judge.lean.project import SpecKind
from judge.lean.static import StaticReport, static_check
from judge.lean.toolchain import ToolchainUnavailable
from judge.lean.toolchain_status import ToolchainStatus, toolchain_status

__all__ = [
    "STANDARD_AXIOMS",
    "AllowParse",
    "LeanJob",
    "PreparationFailed",
    "PreparedVerifier",
    "SpecKind",
    "StaticReport",
    "ToolchainStatus",
    "ToolchainUnavailable",
    "VerifierRejected",
    "judge_lean",
    "parse_allow_line",
    "prepare_verifier",
    "static_check",
    "toolchain_status",
]
