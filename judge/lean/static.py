"""Checks on a Lean verifier at publishing time, before (and without) any build."""

from __future__ import annotations

import dataclasses
import re

from judge.lean.allow import parse_allow_line
from judge.lean.modules import verifier_module_error
from judge.lean.prepare import (
    MAX_VERIFIER_BYTES,
    PreparationFailed,
    VerifierRejected,
    prepare_verifier,
)
from judge.lean.prepare_messages import RESERVED_ANSWER_MESSAGE
from judge.lean.project import RESERVED_MODULES
from judge.lean.toolchain import PROJECTS, Toolchain, ToolchainUnavailable, discover

CORE_ROOTS = ("Init", "Std", "Lean", "Lake")
_IMPORT = re.compile(r"^import\s+(?P<module>[^\s]+)", re.M)
_MODIFIERS = r"(?:(?:private|protected|noncomputable|unsafe|partial)\s+)*"
_SPEC_DECL = re.compile(
    r"^(?:@\[[^\]]*\]\s*)*" + _MODIFIERS + r"(?:def|abbrev|theorem|structure|inductive|class|"
    r"opaque|axiom|instance)\s+(?:_root_\.)?Spec\b",
    re.M,
)
# A root-level `answer` (outside any namespace) in the verifier: the bridge would pick it up.
_ANSWER_DECL = re.compile(
    r"^(?:@\[[^\]]*\]\s*)*" + _MODIFIERS + r"(?:def|abbrev|theorem|lemma|instance|opaque|axiom|"
    r"structure|inductive|class)\s+(?:_root_\.)?answer\b",
    re.M,
)
_SPEC_PROP = re.compile(r"\bSpec\s*:\s*Prop\b")
_SPEC_TYPE = re.compile(r"(?:\bSpec\s*:\s*Type\b)|(?:^\s*(?:structure|inductive)\s+Spec\b)", re.M)


@dataclasses.dataclass(frozen=True, slots=True)
class StaticReport:
    """What publishing shows the author. ``ok`` is True exactly when ``errors`` is empty.

    ``built`` says whether the verifier was also built and audited (``prepare_verifier``);
    ``build_pending_reason`` says why not when a build was asked for but no toolchain exists.
    """

    ok: bool
    errors: tuple[str, ...]
    allowed_axioms: tuple[str, ...]
    widened_axioms: tuple[str, ...]
    spec_kind: str | None
    built: bool = False
    build_pending_reason: str | None = None
    # Shown to the author, never blocking (e.g. a directive-looking comment after line 1).
    warnings: tuple[str, ...] = ()


def _source_errors(source: str, project: str) -> list[str]:
    errors: list[str] = []
    if project not in PROJECTS:
        errors.append(f"unknown Lean project {project!r}; use one of: {', '.join(PROJECTS)}")
    if not source.strip():
        errors.append("the verifier is empty")
        return errors
    if len(source.encode("utf-8", "surrogatepass")) > MAX_VERIFIER_BYTES:
        errors.append(f"the verifier is larger than {MAX_VERIFIER_BYTES} bytes")
    if "\x00" in source:
        errors.append("the verifier contains a NUL character")
    for match in _IMPORT.finditer(source):
        module = match.group("module")
        root = module.split(".")[0]
        if root in RESERVED_MODULES or root == "Verifier":
            errors.append(f"`import {module}`: that module name is reserved by the judge")
        elif project == "core" and root not in CORE_ROOTS:
            errors.append(
                f"`import {module}` is not available in the core project (only "
                f"{', '.join(CORE_ROOTS)}); publish with project `mathlib` to use Mathlib"
            )
    module_error = verifier_module_error(source)
    if module_error is not None:
        errors.append(module_error)
    if _declares_root_answer(source):
        errors.append(RESERVED_ANSWER_MESSAGE)
    if not _SPEC_DECL.search(source):
        errors.append(
            "the verifier must define a root-level `Spec`, e.g. `abbrev Spec : Prop := 2 + 2 = 4`"
            " or `def Spec : Type := { n : Nat // n * n = 49 }`"
        )
    return errors


def _declares_root_answer(source: str) -> bool:
    """Whether ``answer`` is declared outside every namespace (a textual early check).

    The build's audit checks the elaborated environment as well; this gives the message before
    any build and without a toolchain.
    """
    depth = 0
    for line in source.splitlines():
        stripped = line.strip()
        if re.match(r"^namespace\s+\S", stripped):
            depth += 1
        elif re.match(r"^end(\s+\S+)?\s*$", stripped) and depth > 0:
            depth -= 1
        elif _ANSWER_DECL.match(stripped) and (depth == 0 or "_root_.answer" in stripped):
            return True
    return False


def _spec_kind(source: str) -> str | None:
    is_prop = bool(_SPEC_PROP.search(source))
    is_type = bool(_SPEC_TYPE.search(source))
    if is_prop != is_type:
        return "prop" if is_prop else "type"
    return None


def static_check(
    source: str,
    project: str,
    *,
    build: bool = False,
    toolchain: Toolchain | None = None,
) -> StaticReport:
    """Check a verifier for publishing; with ``build=True`` also build and audit it.

    Never raises for bad input. Without a toolchain the build is reported as pending, not as an
    error: the verifier is then checked when a toolchain exists.
    """
    if not isinstance(source, str):
        return StaticReport(False, ("the verifier must be text",), (), (), None)
    allow = parse_allow_line(source)
    errors = [*allow.errors, *_source_errors(source, project)]
    kind = _spec_kind(source)
    report = StaticReport(
        ok=not errors,
        errors=tuple(errors),
        allowed_axioms=allow.permitted_axioms if allow.ok else (),
        widened_axioms=allow.widened,
        spec_kind=kind,
        warnings=allow.warnings,
    )
    if errors or not build:
        return report
    try:
        prepared = prepare_verifier(source, project, toolchain=toolchain or discover())
    except ToolchainUnavailable as exc:
        return dataclasses.replace(report, build_pending_reason=str(exc))
    except PreparationFailed as exc:
        return dataclasses.replace(report, build_pending_reason=f"platform error: {exc}")
    except VerifierRejected as exc:
        return dataclasses.replace(report, ok=False, errors=(str(exc),))
    return dataclasses.replace(report, built=True, spec_kind=prepared.spec_kind.value)
