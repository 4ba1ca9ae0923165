"""The author publishing workflow: draft → published (immutable versions) → retired.

This module is the single path for the workflow: the REST API and the author pages both call
these functions. Every function takes the acting ``author`` and refuses, with the same
:class:`~market.exceptions.NotFound` as a missing object, a problem or verifier of someone else.

- A problem and its verifiers start as drafts that only their author sees and edits.
- A dry run (:mod:`verifiers.services.dry_runs`, judged in a judge worker) judges a frozen
  copy of the current draft against the author's reference solutions (each must be ACCEPTED)
  and known-wrong samples (each must be REJECTED); it records a fingerprint of that draft.
- Publishing a verifier needs: a finished, passing dry run of the current draft, the judge's static
  checks, a budget within the server caps, and (for the problem's first verifier) a statement
  and an enabled currency. It freezes the draft into a new :class:`VerifierVersion` (sha256 of
  the source) and deactivates the previous one: solutions and asks keep pointing at the
  version they were judged against. A problem is published with its first published verifier.
- Retiring stops new submissions (versions become inactive); existing solutions, asks and
  entitlements stay valid.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify

from judge.budgets import MAX_SAMPLES
from judge.verdict import MAX_SOLUTION_BYTES
from market.exceptions import NotFound
from market.models import Problem, ProblemStatus
from market.money import Currency
from verifiers.budgets import get_language_budget
from verifiers.exceptions import InvalidVerifier, LeanUnavailable, NotEditable, PublishRefused
from verifiers.models import (
    Language,
    LeanProject,
    Verifier,
    VerifierStatus,
    VerifierVersion,
)
from verifiers.services.judging import Draft, check_draft, lean_toolchain_status

MAX_TITLE_CHARS = 200
MAX_STATEMENT_CHARS = 100_000
MAX_SOURCE_BYTES = 256 * 1024
_UNSET: Any = object()
# PostgreSQL text cannot hold NUL; refusing it here keeps it a 400, not a database error.
_NUL_MESSAGE = "must not contain the NUL character (U+0000)"


# --- problems -------------------------------------------------------------------------------


def create_problem(
    *,
    author: AbstractBaseUser,
    title: str,
    statement_md: str = "",
    currency: str = Currency.DEMO,
    is_demo: bool = False,
) -> Problem:
    """Create a draft problem owned by ``author`` (with a unique slug derived from the title)."""
    fields = _problem_field_errors(title=title, statement_md=statement_md, currency=currency)
    if is_demo and currency != Currency.DEMO:
        fields.setdefault("currency", []).append("a demo problem trades in DEMO")
    if fields:
        raise InvalidVerifier("invalid problem", fields=fields)
    base = slugify(title)[:60] or "problem"
    for attempt in range(5):
        slug = base if attempt == 0 else f"{base}-{secrets.token_hex(3)}"
        if Problem.objects.filter(slug=slug).exists():
            continue
        try:
            with transaction.atomic():
                return Problem.objects.create(
                    author_id=author.pk,
                    title=title.strip(),
                    slug=slug,
                    statement_md=statement_md,
                    currency=currency,
                    is_demo=is_demo,
                    status=ProblemStatus.DRAFT,
                )
        except IntegrityError:
            continue  # another problem took this slug meanwhile: try a suffixed one
    raise InvalidVerifier("could not find a free slug", fields={"title": ["try another title"]})


def update_problem(
    *,
    author: AbstractBaseUser,
    problem: Problem,
    title: str = _UNSET,
    statement_md: str = _UNSET,
    currency: str = _UNSET,
) -> Problem:
    """Change a draft problem; a published or retired problem's text and currency are frozen."""
    with transaction.atomic():
        problem = _lock_own_problem(author=author, problem_id=problem.pk)
        if problem.status != ProblemStatus.DRAFT:
            raise NotEditable(
                f"this problem is {problem.status}; only a draft problem can be edited"
            )
        changes = {
            name: value
            for name, value in (
                ("title", title),
                ("statement_md", statement_md),
                ("currency", currency),
            )
            if value is not _UNSET
        }
        fields = _problem_field_errors(
            title=changes.get("title", problem.title),
            statement_md=changes.get("statement_md", problem.statement_md),
            currency=changes.get("currency", problem.currency),
        )
        if problem.is_demo and changes.get("currency", Currency.DEMO) != Currency.DEMO:
            fields.setdefault("currency", []).append("a demo problem trades in DEMO")
        if fields:
            raise InvalidVerifier("invalid problem", fields=fields)
        if "title" in changes:
            changes["title"] = changes["title"].strip()
        for name, value in changes.items():
            setattr(problem, name, value)
        if changes:
            problem.save(update_fields=list(changes))
    return problem


def publish_problem(*, author: AbstractBaseUser, problem: Problem) -> Problem:
    """Publish a draft problem together with all its draft verifiers (at least one).

    Every draft verifier must pass the publishing checks; otherwise nothing is published.
    Publishing an already published problem changes nothing.
    """
    with transaction.atomic():
        problem = _lock_own_problem(author=author, problem_id=problem.pk)
        if problem.status == ProblemStatus.PUBLISHED:
            return problem
        if problem.status == ProblemStatus.RETIRED:
            raise NotEditable("this problem is retired and cannot be published again")
        drafts = list(
            Verifier.objects.select_for_update()
            .filter(problem=problem, status=VerifierStatus.DRAFT)
            .order_by("id")
        )
        if not drafts:
            raise PublishRefused(
                "a problem is published with its first verifier: add one, dry-run it, publish",
                fields={"verifiers": ["no draft verifier to publish"]},
            )
        for verifier in drafts:
            _publish_locked(problem=problem, verifier=verifier, prefix=f"{verifier.name}.")
    return problem


def retire_problem(*, author: AbstractBaseUser, problem: Problem) -> Problem:
    """Retire a problem and all its verifiers: no new solutions and no new orders.

    Existing solutions, verdicts, entitlements and open orders are kept (their owners may
    still cancel open orders and read what they bought). Retiring twice changes nothing.
    A draft problem cannot be retired, and its draft verifiers stay drafts: "retired" is
    public, so retiring would show what was never published.
    """
    with transaction.atomic():
        problem = _lock_own_problem(author=author, problem_id=problem.pk)
        if problem.status == ProblemStatus.RETIRED:
            return problem
        if problem.status == ProblemStatus.DRAFT:
            raise NotEditable(
                "a draft problem was never public: there is nothing to retire "
                "(it stays visible to you only)"
            )
        problem.status = ProblemStatus.RETIRED
        problem.save(update_fields=["status"])
        verifier_ids = list(
            problem.verifiers.exclude(status=VerifierStatus.DRAFT).values_list("id", flat=True)
        )
        Verifier.objects.filter(pk__in=verifier_ids).update(
            status=VerifierStatus.RETIRED, updated_at=timezone.now()
        )
        VerifierVersion.objects.filter(verifier_id__in=verifier_ids).update(is_active=False)
    return problem


# --- verifiers ------------------------------------------------------------------------------


def create_verifier(
    *,
    author: AbstractBaseUser,
    problem: Problem,
    language: str,
    source: str,
    name: str = "main",
    time_limit_s: float = 10.0,
    memory_limit_mb: int = 256,
    lean_project: str = "",
    is_source_public: bool = False,
    reference_solutions: Sequence[str] = (),
    wrong_solutions: Sequence[str] = (),
) -> Verifier:
    """Add a draft verifier to the author's draft or published problem."""
    with transaction.atomic():
        problem = _lock_own_problem(author=author, problem_id=problem.pk)
        if problem.status == ProblemStatus.RETIRED:
            raise NotEditable("this problem is retired; it takes no new verifiers")
        if language == Language.LEAN and not lean_project:
            lean_project = LeanProject.CORE
        values = {
            "name": name,
            "language": language,
            "draft_source": source,
            "time_limit_s": time_limit_s,
            "memory_limit_mb": memory_limit_mb,
            "lean_project": lean_project,
            "is_source_public": is_source_public,
            "reference_solutions": list(reference_solutions),
            "wrong_solutions": list(wrong_solutions),
        }
        _raise_verifier_field_errors(values)
        if Verifier.objects.filter(problem=problem, name=values["name"]).exists():
            raise InvalidVerifier(
                "this problem already has a verifier of that name",
                fields={"name": ["already used on this problem"]},
            )
        return Verifier.objects.create(problem=problem, status=VerifierStatus.DRAFT, **values)


def update_verifier(
    *,
    author: AbstractBaseUser,
    verifier: Verifier,
    name: str = _UNSET,
    language: str = _UNSET,
    source: str = _UNSET,
    time_limit_s: float = _UNSET,
    memory_limit_mb: int = _UNSET,
    lean_project: str = _UNSET,
    is_source_public: bool = _UNSET,
    reference_solutions: Sequence[str] = _UNSET,
    wrong_solutions: Sequence[str] = _UNSET,
) -> Verifier:
    """Edit a verifier's draft. On a published verifier the live version is unchanged until
    :func:`publish_verifier` freezes the edited draft into a new version."""
    with transaction.atomic():
        _lock_own_problem(author=author, problem_id=verifier.problem_id)
        verifier = Verifier.objects.select_for_update().get(pk=verifier.pk)
        if verifier.status == VerifierStatus.RETIRED:
            raise NotEditable("this verifier is retired and cannot be edited")
        changes = {
            key: value
            for key, value in (
                ("name", name),
                ("language", language),
                ("draft_source", source),
                ("time_limit_s", time_limit_s),
                ("memory_limit_mb", memory_limit_mb),
                ("lean_project", lean_project),
                ("is_source_public", is_source_public),
                ("reference_solutions", reference_solutions),
                ("wrong_solutions", wrong_solutions),
            )
            if value is not _UNSET
        }
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
            if key in changes:
                changes[key] = list(changes[key])
        values = {
            "name": verifier.name,
            "language": verifier.language,
            "draft_source": verifier.draft_source,
            "time_limit_s": verifier.time_limit_s,
            "memory_limit_mb": verifier.memory_limit_mb,
            "lean_project": verifier.lean_project,
            "is_source_public": verifier.is_source_public,
            "reference_solutions": verifier.reference_solutions,
            "wrong_solutions": verifier.wrong_solutions,
            **changes,
        }
        _raise_verifier_field_errors(values)
        if (
            "name" in changes
            and Verifier.objects.filter(problem_id=verifier.problem_id, name=changes["name"])
            .exclude(pk=verifier.pk)
            .exists()
        ):
            raise InvalidVerifier(
                "this problem already has a verifier of that name",
                fields={"name": ["already used on this problem"]},
            )
        for key, value in changes.items():
            setattr(verifier, key, value)
        if changes:
            verifier.save(update_fields=[*changes, "updated_at"])
    return verifier


def publish_verifier(*, author: AbstractBaseUser, verifier: Verifier) -> VerifierVersion:
    """Freeze the verifier's draft into a new active version (publishing the problem with it
    if it is still a draft). Publishing an unchanged draft again returns the live version."""
    with transaction.atomic():
        problem = _lock_own_problem(author=author, problem_id=verifier.problem_id)
        verifier = Verifier.objects.select_for_update().get(pk=verifier.pk)
        return _publish_locked(problem=problem, verifier=verifier, prefix="")


def retire_verifier(*, author: AbstractBaseUser, verifier: Verifier) -> Verifier:
    """Stop new submissions to this verifier; its solutions, asks and entitlements stay valid."""
    with transaction.atomic():
        _lock_own_problem(author=author, problem_id=verifier.problem_id)
        verifier = Verifier.objects.select_for_update().get(pk=verifier.pk)
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


# --- helpers --------------------------------------------------------------------------------


def draft_snapshot(verifier: Verifier) -> dict[str, Any]:
    """Everything a dry run judges, frozen: the worker judges this, not the live draft."""
    return {
        "language": verifier.language,
        "source": verifier.draft_source,
        "time_limit_s": float(verifier.time_limit_s),
        "memory_limit_mb": int(verifier.memory_limit_mb),
        "lean_project": verifier.lean_project,
        "reference_solutions": list(verifier.reference_solutions),
        "wrong_solutions": list(verifier.wrong_solutions),
    }


def draft_fingerprint(verifier: Verifier) -> str:
    """sha256 of everything a dry run depends on: changing any of it needs a new dry run."""
    payload = json.dumps(draft_snapshot(verifier), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def budget_caps(language: str) -> tuple[float, int]:
    """(max time_limit_s, max memory_limit_mb) the server allows for ``language``."""
    budget = get_language_budget(language)
    return budget.max_time_s, budget.max_memory_mb


def _publish_locked(*, problem: Problem, verifier: Verifier, prefix: str) -> VerifierVersion:
    """Precondition: the problem and the verifier rows are locked by the caller."""
    if problem.status == ProblemStatus.RETIRED:
        raise NotEditable("this problem is retired; its verifiers cannot be published")
    if verifier.status == VerifierStatus.RETIRED:
        raise NotEditable("this verifier is retired and cannot be published again")
    source_sha256 = hashlib.sha256(verifier.draft_source.encode("utf-8")).hexdigest()
    current = verifier.versions.filter(is_active=True).order_by("-number").first()
    if current is not None and (
        current.sha256 == source_sha256
        and current.time_limit_s == verifier.time_limit_s
        and current.memory_limit_mb == verifier.memory_limit_mb
        and current.lean_project == verifier.lean_project
    ):
        return current  # nothing changed since the live version

    reasons: dict[str, list[str]] = {}
    if problem.status == ProblemStatus.DRAFT:
        if not problem.statement_md.strip():
            reasons.setdefault("statement_md", []).append("the problem needs a statement")
        if problem.currency == Currency.USD and not settings.STRIPE_SECRET_KEY:
            reasons.setdefault("currency", []).append("USD is not enabled on this server")
    budget = get_language_budget(verifier.language)
    if (why := budget.time_refusal(verifier.time_limit_s)) is not None:
        reasons.setdefault(prefix + "time_limit_s", []).append(why)
    if (why := budget.memory_refusal(verifier.memory_limit_mb)) is not None:
        reasons.setdefault(prefix + "memory_limit_mb", []).append(why)
    lean_reason = ""
    if verifier.language == Language.LEAN:
        available, why = lean_toolchain_status()
        if not available:
            lean_reason = f"Lean judging is unavailable on this server ({why})"
            reasons.setdefault(prefix + "language", []).append(lean_reason)
    static = check_draft(draft=_draft_of(verifier))
    if not static.is_ok:
        reasons.setdefault(prefix + "source", []).extend(static.errors)
    # Publishing never waits for a judge worker: it needs a FINISHED passing dry run of this
    # exact draft (the page and the API say so while one is still running).
    dry_run = verifier.dry_runs.order_by("-id").first()
    if dry_run is None or dry_run.fingerprint != draft_fingerprint(verifier):
        reasons.setdefault(prefix + "dry_run", []).append("run a dry run of the current draft")
    elif not dry_run.is_finished:
        reasons.setdefault(prefix + "dry_run", []).append(
            "the dry run of this draft has not finished yet: publish when it has passed"
        )
    elif not dry_run.is_passed:
        reasons.setdefault(prefix + "dry_run", []).append(
            f"the last dry run failed: {dry_run.summary}"
        )
    if lean_reason:
        raise LeanUnavailable(
            f"{lean_reason}: a Lean verifier cannot be published until a server with the "
            "Lean toolchain can dry-run it",
            fields=reasons,
        )
    if reasons:
        raise PublishRefused("this verifier cannot be published yet", fields=reasons)

    number = (verifier.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    verifier.versions.filter(is_active=True).update(is_active=False)
    version = VerifierVersion.objects.create(
        verifier=verifier,
        number=number,
        language=verifier.language,
        source=verifier.draft_source,
        sha256=source_sha256,
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
    if problem.status == ProblemStatus.DRAFT:
        problem.status = ProblemStatus.PUBLISHED
        problem.published_at = timezone.now()
        problem.save(update_fields=["status", "published_at"])
    return version


def _lock_own_problem(*, author: AbstractBaseUser, problem_id: int) -> Problem:
    problem = Problem.objects.select_for_update().filter(pk=problem_id).first()
    if problem is None or problem.author_id != author.pk:
        raise NotFound("no such problem")
    return problem


def _get_own_verifier(*, author: AbstractBaseUser, verifier_id: int) -> Verifier:
    verifier = Verifier.objects.select_related("problem").filter(pk=verifier_id).first()
    if verifier is None or verifier.problem.author_id != author.pk:
        raise NotFound("no such verifier")
    return verifier


def _draft_of(verifier: Verifier) -> Draft:
    return Draft(
        language=verifier.language,
        source=verifier.draft_source,
        time_limit_s=float(verifier.time_limit_s),
        memory_limit_mb=int(verifier.memory_limit_mb),
        lean_project=verifier.lean_project,
    )


def _problem_field_errors(*, title: Any, statement_md: Any, currency: Any) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    if not isinstance(title, str) or not title.strip():
        fields["title"] = ["a non-empty title is required"]
    elif len(title.strip()) > MAX_TITLE_CHARS:
        fields["title"] = [f"at most {MAX_TITLE_CHARS} characters"]
    if not isinstance(statement_md, str):
        fields["statement_md"] = ["must be text"]
    elif len(statement_md) > MAX_STATEMENT_CHARS:
        fields["statement_md"] = [f"at most {MAX_STATEMENT_CHARS} characters"]
    if currency not in Currency.values:
        fields["currency"] = [f"one of {', '.join(Currency.values)}"]
    for name, value in (("title", title), ("statement_md", statement_md)):
        if isinstance(value, str) and "\x00" in value and name not in fields:
            fields[name] = [_NUL_MESSAGE]
    return fields


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
        fields["name"] = [_NUL_MESSAGE]
    if isinstance(source, str) and "\x00" in source:
        fields["source"] = [_NUL_MESSAGE]
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
            fields[key] = [_NUL_MESSAGE]
    if fields:
        raise InvalidVerifier("invalid verifier", fields=fields)
