"""The one seam between the apps and the judge: a verifier (a published version or a draft)
and a text in, a :class:`~judge.verdict.Verdict` out.

Solutions (``market.tasks``) and dry runs (``verifiers.tasks``) are both judged through
:func:`judge_text`, in the judge workers only: the web process never calls it. The judge
Lean backend is imported lazily so that this module loads (and says clearly what is missing)
on a server without it. The Python judge and its publishing check are pure Python, part of
this repository's ``judge`` package, so they are imported directly (the check's typed report
is read as is; it never raises).
"""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import TYPE_CHECKING

from judge.lean import LeanJob, judge_lean, toolchain_status
from judge.lean import static_check as lean_static_check
from judge.python import PythonJob, judge_python
from judge.python.static import static_check as python_static_check
from judge.verdict import Verdict, judge_error
from verifiers.budgets import get_language_budget
from verifiers.models import Language

if TYPE_CHECKING:
    from verifiers.models import VerifierVersion

logger = logging.getLogger(__name__)

# A Lean verifier's solution format is its Spec: the declaration line(s) naming it.
_LEAN_SPEC = re.compile(
    r"^(?:@\[[^\]]*\][ \t]*)?(?:noncomputable[ \t]+)?(?:abbrev|def|structure|inductive)"
    r"[ \t]+Spec\b.*$",
    re.M,
)


@dataclasses.dataclass(frozen=True, slots=True)
class Draft:
    """What is judged: a verifier's source and budget, frozen."""

    language: str
    source: str
    time_limit_s: float
    memory_limit_mb: int
    lean_project: str = ""

    @classmethod
    def of_version(cls, version: VerifierVersion) -> Draft:
        """The frozen verifier of a published version."""
        return cls(
            language=version.language,
            source=version.source,
            time_limit_s=float(version.time_limit_s),
            memory_limit_mb=int(version.memory_limit_mb),
            lean_project=version.lean_project,
        )


@dataclasses.dataclass(frozen=True, slots=True)
class StaticResult:
    is_ok: bool
    errors: tuple[str, ...]
    solution_format: str
    allowed_axioms: tuple[str, ...]


def lean_toolchain_status() -> tuple[bool, str]:
    """(available, reason) of the Lean toolchain on this server; never raises."""
    try:
        status = toolchain_status()
    except Exception as exc:  # the probe itself failing means "not available", with why
        logger.exception("the Lean toolchain probe failed")
        return False, f"the Lean toolchain probe failed: {exc}"
    return status.available, status.reason


def judge_text(
    *, verifier: Draft | VerifierVersion, text: str | bytes, seed: int | None = None
) -> Verdict:
    """Judge ``text`` against a verifier (a published version or a draft) with the real judge
    of its language, under the server's budget range. Precondition: runs in a judge worker."""
    draft = verifier if isinstance(verifier, Draft) else Draft.of_version(verifier)
    try:
        budget = get_language_budget(draft.language)
    except (KeyError, ValueError) as exc:
        return judge_error(f"no budget range for {draft.language!r} on this server ({exc})")
    if draft.language == Language.PYTHON:
        return judge_python(
            PythonJob(
                verifier_source=draft.source,
                solution=text,
                seed=seed,
                time_limit_s=draft.time_limit_s,
                memory_limit_mb=draft.memory_limit_mb,
                budget=budget,
            )
        )
    available, reason = lean_toolchain_status()
    if not available:
        return judge_error(f"Lean judging is unavailable on this server: {reason}")
    return judge_lean(
        LeanJob(
            verifier_source=draft.source,
            solution=text,
            project=draft.lean_project or "core",
            time_limit_s=draft.time_limit_s,
            memory_limit_mb=draft.memory_limit_mb,
            budget=budget,
        )
    )


def check_draft(*, draft: Draft) -> StaticResult:
    """The judge's static checks on a draft (Python: imports, verify, docstring; Lean: allow
    line, Spec), plus what publishing records: the solution format and allowed axioms."""
    if draft.language == Language.PYTHON:
        report = python_static_check(draft.source)  # never raises: fails closed
        docstring = (report.docstring or "").strip()
        return StaticResult(report.ok and not report.errors, report.errors, docstring, ())

    try:
        report = lean_static_check(draft.source, draft.lean_project or "core")
    except Exception:  # documented never to raise; if it does, refuse (fail closed) and log
        logger.exception("the Lean static check raised")
        errors_list = ["internal error in the Lean static check: refused (the error is logged)"]
        widened: tuple[str, ...] = ()
    else:
        errors_list = list(dict.fromkeys(str(error) for error in report.errors))
        if not report.ok and not errors_list:
            errors_list.append("the Lean static check refused this verifier")
        widened = report.widened_axioms
    solution_format = lean_spec_declaration(draft.source)
    if not solution_format:
        errors_list.append("no root-level `Spec` is defined (abbrev/def/structure Spec ...)")
    return StaticResult(not errors_list, tuple(errors_list), solution_format, widened)


def lean_spec_declaration(source: str) -> str:
    """The `Spec` declaration of a Lean verifier, with its indented continuation lines: what a
    solver must produce (`answer : Spec`). Empty when there is none at the start of a line."""
    match = _LEAN_SPEC.search(source)
    if match is None:
        return ""
    lines = [match.group(0).rstrip()]
    for line in source[match.end() :].split("\n")[1:]:
        if not line.strip() or not line[0].isspace():
            break
        lines.append(line.rstrip())
    return "\n".join(lines)


def python_compile_error(draft: Draft) -> str:
    """The compiler's own message for a Python draft that does not compile, or "" (never runs
    it). ``compile`` rather than ``ast.parse``: it also refuses what only the compiler sees
    (``return`` outside a function, a misplaced ``nonlocal``), which would otherwise fail on
    every sample as the same RUNTIME_ERROR."""
    if draft.language != Language.PYTHON:
        return ""
    try:
        compile(draft.source, "<verifier>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"{exc.msg} (line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, absurd nesting
        return f"{type(exc).__name__}: {exc}"[:200]
    return ""
