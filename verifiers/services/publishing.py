"""The verifier half of the publishing workflow: drafts, their checks and frozen versions.

``verifiers`` imports nothing of ``market``: these functions act on verifier rows only, and
the author-facing workflow in ``market.services.problems`` and
``market.services.verifier_authoring`` owns the problem row (its lock, its status, the author
check) and calls them. Functions marked "precondition: the problem row is locked" must run in
the caller's transaction after ``market.services.problems.lock_own_problem``.

- A draft verifier is edited freely; its fields are checked here (budget within the server
  caps of :mod:`verifiers.budgets`, language, Lean project, sizes, no NUL character).
- A dry run (:mod:`verifiers.services.dry_runs`, judged in a judge worker) judges a frozen
  copy of the current draft (:mod:`verifiers.drafts`) and records its fingerprint.
- Freezing a draft follows :data:`PUBLISHING_RULE` (the one statement of it; the pages and the
  API show it and :func:`publish_refusals` names what is missing). It creates a new
  :class:`VerifierVersion` (sha256 of the source) and deactivates the previous one: solutions
  and asks keep pointing at the version they were judged against.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from django.db.models import Max
from django.utils import timezone

from judge.budgets import MAX_SAMPLES
from judge.verdict import MAX_SOLUTION_BYTES
from verifiers.budgets import get_language_budget
from verifiers.drafts import draft_fingerprint
from verifiers.exceptions import InvalidVerifier, LeanUnavailable, NotEditable, PublishRefused
from verifiers.models import (
    DryRun,
    Language,
    LeanProject,
    Verifier,
    VerifierStatus,
    VerifierVersion,
)
from verifiers.services.judging import (
    Draft,
    check_draft,
    lean_toolchain_status,
    python_compile_error,
)

MAX_SOURCE_BYTES = 256 * 1024

# The publishing rule, stated once: the author pages and the API docs show this text, and
# freeze_draft (through publish_refusals) enforces it. Each verifier is published on its own.
PUBLISHING_RULE = (
    "A verifier is published on its own, once the last dry run of its current draft has "
    "finished and passed: the static checks pass, every reference solution is ACCEPTED, every "
    "wrong one is REJECTED, and the verifier raised on none of them. The problem is listed "
    "with its first published verifier (it needs a statement and an enabled currency); other "
    "draft verifiers stay private drafts until each passes."
)
LEAN_REFUSAL = "Lean judging is unavailable on this server"
# A sentinel for "argument not given" in partial updates (None can be a real value).
UNSET: Any = object()
# PostgreSQL text cannot hold NUL; refusing it here keeps it a 400, not a database error.
NUL_MESSAGE = "must not contain the NUL character (U+0000)"
# The draft fields an author edits, by service argument name -> model field.
DRAFT_FIELDS = {
    "name": "name",
    "language": "language",
    "source": "draft_source",
    "time_limit_s": "time_limit_s",
    "memory_limit_mb": "memory_limit_mb",
    "lean_project": "lean_project",
    "is_source_public": "is_source_public",
    "reference_solutions": "reference_solutions",
    "wrong_solutions": "wrong_solutions",
}


def create_draft_verifier(*, problem_id: int, values: Mapping[str, Any]) -> Verifier:
    """Add a draft verifier to a problem; ``values`` are :data:`DRAFT_FIELDS` arguments.

    Precondition: the problem row is locked and the caller checked it takes verifiers.
    """
    # Every draft field is given (KeyError otherwise): the defaults live in the signature of
    # market.services.verifier_authoring.create_verifier, once.
    fields = {field: values[key] for key, field in DRAFT_FIELDS.items()}
    if fields["language"] == Language.LEAN and not fields["lean_project"]:
        fields["lean_project"] = LeanProject.CORE
    for key in ("reference_solutions", "wrong_solutions"):
        if isinstance(fields[key], (list, tuple)):
            fields[key] = list(fields[key])
    _raise_verifier_field_errors(fields)
    _refuse_duplicate_name(problem_id=problem_id, name=fields["name"], exclude_id=None)
    return Verifier.objects.create(problem_id=problem_id, status=VerifierStatus.DRAFT, **fields)


def edit_draft_verifier(*, verifier_id: int, values: Mapping[str, Any]) -> Verifier:
    """Change a verifier's draft (the live version is unchanged until the draft is frozen).

    Precondition: the verifier's problem row is locked by the caller.
    """
    verifier = Verifier.objects.select_for_update().get(pk=verifier_id)
    if verifier.status == VerifierStatus.RETIRED:
        raise NotEditable("this verifier is retired and cannot be edited")
    changes = {DRAFT_FIELDS[key]: value for key, value in values.items() if value is not UNSET}
    if (
        "language" in changes
        and changes["language"] != verifier.language
        and verifier.versions.exists()
    ):
        raise NotEditable(
            "a published verifier keeps its language; add a new verifier instead",
            fields={"language": ["cannot change after publishing"]},
        )
    new_language = changes.get("language", verifier.language)
    if "language" in changes and "lean_project" not in changes:
        changes["lean_project"] = LeanProject.CORE if new_language == Language.LEAN else ""
    for key in ("reference_solutions", "wrong_solutions"):
        if key in changes and isinstance(changes[key], (list, tuple)):
            changes[key] = list(changes[key])
    current = {field: getattr(verifier, field) for field in DRAFT_FIELDS.values()}
    _raise_verifier_field_errors({**current, **changes})
    if "name" in changes:
        _refuse_duplicate_name(
            problem_id=verifier.problem_id, name=changes["name"], exclude_id=verifier.pk
        )
    for key, value in changes.items():
        setattr(verifier, key, value)
    if changes:
        verifier.save(update_fields=[*changes, "updated_at"])
    return verifier


def lock_draft_verifiers(*, problem_id: int) -> list[Verifier]:
    """The problem's draft verifiers, locked, in id order (precondition: problem row locked)."""
    return list(
        Verifier.objects.select_for_update()
        .filter(problem_id=problem_id, status=VerifierStatus.DRAFT)
        .order_by("id")
    )


def lock_verifier(*, verifier_id: int) -> Verifier:
    """The verifier row, locked (precondition: its problem row is locked first)."""
    return Verifier.objects.select_for_update().get(pk=verifier_id)


def freeze_draft(
    *, verifier: Verifier, prefix: str, refusals: Mapping[str, list[str]]
) -> VerifierVersion:
    """Freeze the verifier's draft into a new active version, or refuse with every reason.

    ``refusals`` are the caller's reasons (the problem's: statement, currency), reported
    together with the verifier's own; field names get ``prefix`` when several verifiers are
    published at once. An unchanged draft returns the live version.
    Precondition: the problem and the verifier rows are locked by the caller.
    """
    if verifier.status == VerifierStatus.RETIRED:
        raise NotEditable("this verifier is retired and cannot be published again")
    current = _unchanged_live_version(verifier)
    if current is not None:
        return current  # nothing changed since the live version

    reasons: dict[str, list[str]] = {key: list(value) for key, value in refusals.items()}
    for key, why in _refusals(verifier).items():
        reasons.setdefault(prefix + key, []).extend(why)
    lean_reason = next(
        (why for why in reasons.get(prefix + "language", []) if why.startswith(LEAN_REFUSAL)),
        "",
    )
    if lean_reason:
        raise LeanUnavailable(
            f"{lean_reason}: a Lean verifier cannot be published until a server with the "
            "Lean toolchain can dry-run it",
            fields=reasons,
        )
    if reasons:
        raise PublishRefused("this verifier cannot be published yet", fields=reasons)
    # Fail closed: the checks run again on the source being frozen, whatever was recorded.
    static = check_draft(draft=_draft_of(verifier))
    if not static.is_ok:
        raise PublishRefused(
            "this verifier cannot be published yet", fields={prefix + "source": list(static.errors)}
        )

    number = (verifier.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    verifier.versions.filter(is_active=True).update(is_active=False)
    version = VerifierVersion.objects.create(
        verifier=verifier,
        number=number,
        language=verifier.language,
        source=verifier.draft_source,
        sha256=_source_sha256(verifier),
        time_limit_s=verifier.time_limit_s,
        memory_limit_mb=verifier.memory_limit_mb,
        lean_project=verifier.lean_project,
        solution_format=static.solution_format,
        allowed_axioms=list(static.allowed_axioms),
        is_active=True,
    )
    if verifier.status != VerifierStatus.PUBLISHED:
        verifier.status = VerifierStatus.PUBLISHED
        verifier.save(update_fields=["status", "updated_at"])
    return version


def publish_refusals(*, verifier: Verifier) -> dict[str, list[str]]:
    """Why the verifier's current draft cannot be published now, by field ({} when it can).

    The verifier's own half of :data:`PUBLISHING_RULE` (the problem's half, a statement and an
    enabled currency, is the caller's). Reads only; an unchanged published draft has nothing
    to publish and no reasons.
    """
    if verifier.status == VerifierStatus.RETIRED:
        return {"status": ["this verifier is retired and cannot be published again"]}
    if _unchanged_live_version(verifier) is not None:
        return {}
    return _refusals(verifier)


def _refusals(verifier: Verifier) -> dict[str, list[str]]:
    reasons: dict[str, list[str]] = {}
    budget = get_language_budget(verifier.language)
    if (why := budget.time_refusal(verifier.time_limit_s)) is not None:
        reasons.setdefault("time_limit_s", []).append(why)
    if (why := budget.memory_refusal(verifier.memory_limit_mb)) is not None:
        reasons.setdefault("memory_limit_mb", []).append(why)
    if verifier.language == Language.LEAN:
        available, why = lean_toolchain_status()
        if not available:
            reasons.setdefault("language", []).append(f"{LEAN_REFUSAL} ({why})")
    dry_run = _latest_dry_run(verifier)
    is_current = dry_run is not None and dry_run.fingerprint == draft_fingerprint(verifier)
    # The static checks cost tens of milliseconds, and the author API shows these reasons for
    # every verifier: a finished dry run of this exact draft (its fingerprint covers the
    # source) recorded their findings, so read those. Without one, the dry run is what is
    # missing, and it runs them. freeze_draft checks afresh before publishing anyway.
    static_errors = list(dry_run.static_errors) if is_current and dry_run.is_finished else []
    if static_errors:
        # The static check names only a syntax error's type; the compiler's message says where.
        compile_error = python_compile_error(_draft_of(verifier))
        reasons["source"] = (
            [f"the verifier does not compile: {compile_error}"] if compile_error else static_errors
        )
    # Publishing never waits for a judge worker: it needs a FINISHED passing dry run of this
    # exact draft (the page and the API say so while one is still running).
    if dry_run is None or not is_current:
        reasons.setdefault("dry_run", []).append("run a dry run of the current draft")
    elif not dry_run.is_finished:
        reasons.setdefault("dry_run", []).append(
            "the dry run of this draft has not finished yet: publish when it has passed"
        )
    elif not dry_run.is_passed and static_errors:
        # Its summary repeats the source's errors above: say them once.
        reasons.setdefault("dry_run", []).append(
            "the last dry run of this draft failed: fix the source first"
        )
    elif not dry_run.is_passed:
        reasons.setdefault("dry_run", []).append(f"the last dry run failed: {dry_run.summary}")
    elif any(result.get("warning") for result in dry_run.results or []):
        # A dry run recorded before raising failed it: the rule is the same for old records.
        reasons.setdefault("dry_run", []).append(
            "the verifier raised on a sample instead of returning False: fix it and dry-run again"
        )
    return reasons


def _latest_dry_run(verifier: Verifier) -> DryRun | None:
    """The newest dry run, from the author selectors' prefetch when there is one."""
    prefetched = getattr(verifier, "dry_runs_newest", None)
    if prefetched is not None:
        return prefetched[0] if prefetched else None
    return verifier.dry_runs.order_by("-id").first()


def _source_sha256(verifier: Verifier) -> str:
    return hashlib.sha256(verifier.draft_source.encode("utf-8")).hexdigest()


def _unchanged_live_version(verifier: Verifier) -> VerifierVersion | None:
    """The live version when the draft is exactly it (nothing to publish), else None."""
    # versions.all(): the author selectors' prefetch when there is one (no query per verifier).
    active = [v for v in verifier.versions.all() if v.is_active]
    current = max(active, key=lambda v: v.number, default=None)
    if current is not None and (
        current.sha256 == _source_sha256(verifier)
        and current.time_limit_s == verifier.time_limit_s
        and current.memory_limit_mb == verifier.memory_limit_mb
        and current.lean_project == verifier.lean_project
    ):
        return current
    return None


def retire_verifier_row(*, verifier_id: int) -> Verifier:
    """Stop new submissions to a verifier (idempotent). Precondition: problem row locked."""
    verifier = Verifier.objects.select_for_update().get(pk=verifier_id)
    if verifier.status == VerifierStatus.RETIRED:
        return verifier
    if verifier.status == VerifierStatus.DRAFT:
        # "Retired" is public: retiring a never-published draft would show it to everyone.
        raise NotEditable(
            "a draft verifier was never public: there is nothing to retire "
            "(it stays visible to you only)"
        )
    verifier.status = VerifierStatus.RETIRED
    verifier.save(update_fields=["status", "updated_at"])
    verifier.versions.update(is_active=False)
    return verifier


def retire_problem_verifiers(*, problem_id: int) -> None:
    """Retire every published verifier of a problem (drafts stay private drafts).

    Precondition: the problem row is locked."""
    verifier_ids = list(
        Verifier.objects.filter(problem_id=problem_id)
        .exclude(status=VerifierStatus.DRAFT)
        .values_list("id", flat=True)
    )
    Verifier.objects.filter(pk__in=verifier_ids).update(
        status=VerifierStatus.RETIRED, updated_at=timezone.now()
    )
    VerifierVersion.objects.filter(verifier_id__in=verifier_ids).update(is_active=False)


def budget_caps(language: str) -> tuple[float, int]:
    """(max time_limit_s, max memory_limit_mb) the server allows for ``language``."""
    budget = get_language_budget(language)
    return budget.max_time_s, budget.max_memory_mb


def _draft_of(verifier: Verifier) -> Draft:
    return Draft(
        language=verifier.language,
        source=verifier.draft_source,
        time_limit_s=float(verifier.time_limit_s),
        memory_limit_mb=int(verifier.memory_limit_mb),
        lean_project=verifier.lean_project,
    )


def _refuse_duplicate_name(*, problem_id: int, name: Any, exclude_id: int | None) -> None:
    others = Verifier.objects.filter(problem_id=problem_id, name=name)
    if exclude_id is not None:
        others = others.exclude(pk=exclude_id)
    if others.exists():
        raise InvalidVerifier(
            "this problem already has a verifier of that name",
            fields={"name": ["already used on this problem"]},
        )


def _raise_verifier_field_errors(values: dict[str, Any]) -> None:
    fields: dict[str, list[str]] = {}
    name = values["name"]
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        fields["name"] = ["1 to 100 characters"]
    language = values["language"]
    if language not in Language.values:
        fields["language"] = [f"one of {', '.join(Language.values)}"]
    source = values["draft_source"]
    if not isinstance(source, str) or not source.strip():
        fields["source"] = ["the verifier's source is required"]
    elif len(source.encode("utf-8")) > MAX_SOURCE_BYTES:
        fields["source"] = [f"at most {MAX_SOURCE_BYTES} bytes"]
    if language in Language.values:
        budget = get_language_budget(language)
        if (why := budget.time_refusal(values["time_limit_s"])) is not None:
            fields["time_limit_s"] = [why]
        if (why := budget.memory_refusal(values["memory_limit_mb"])) is not None:
            fields["memory_limit_mb"] = [why]
        project = values["lean_project"]
        if language == Language.LEAN and project not in LeanProject.values:
            fields["lean_project"] = [f"one of {', '.join(LeanProject.values)}"]
        if language == Language.PYTHON and project:
            fields["lean_project"] = ["only Lean verifiers have a project"]
    if isinstance(name, str) and "\x00" in name:
        fields["name"] = [NUL_MESSAGE]
    if isinstance(source, str) and "\x00" in source:
        fields["source"] = [NUL_MESSAGE]
    if not isinstance(values["is_source_public"], bool):
        fields["is_source_public"] = ["must be true or false"]
    for key in ("reference_solutions", "wrong_solutions"):
        samples = values[key]
        if not isinstance(samples, list) or not all(isinstance(s, str) for s in samples):
            fields[key] = ["a list of solution texts"]
        elif len(samples) > MAX_SAMPLES:
            fields[key] = [f"at most {MAX_SAMPLES} samples"]
        elif any(len(s.encode("utf-8")) > MAX_SOLUTION_BYTES for s in samples):
            fields[key] = [f"each sample is at most {MAX_SOLUTION_BYTES} bytes"]
        elif any("\x00" in s for s in samples):
            fields[key] = [NUL_MESSAGE]
    if fields:
        raise InvalidVerifier("invalid verifier", fields=fields)
