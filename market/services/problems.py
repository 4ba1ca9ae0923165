"""Problem authoring: draft → published (with its first verifier) → retired.

This module and :mod:`market.services.verifier_authoring` are the single path for the author
workflow: the REST API and the author pages both call them. Every function takes the acting
``author`` and refuses, with the same :class:`~market.exceptions.NotFound` as a missing
object, a problem or verifier of someone else. The verifier rows themselves are changed by
:mod:`verifiers.services.publishing` (``verifiers`` imports nothing of ``market``); the lock
order is always the problem row first, then its verifier rows.

- A problem and its verifiers start as drafts that only their author sees and edits.
- Publishing follows :data:`verifiers.services.publishing.PUBLISHING_RULE`: each verifier is
  published on its own once its current draft passed a dry run; a problem is listed with its
  first published verifier, which also needs a statement and an enabled currency
  (:func:`market.selectors.get_problem_publish_refusals`). :func:`publish_problem` publishes
  every draft that may be published and says which stay drafts, and why
  (:class:`ProblemPublication`).
- Retiring stops new submissions (versions become inactive); existing solutions, asks and
  entitlements stay valid.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

from market.exceptions import InvalidProblem, NotFound
from market.models import Problem, ProblemStatus
from market.money import Currency
from market.selectors import get_problem_publish_refusals
from verifiers.exceptions import NotEditable, PublishRefused
from verifiers.models import Verifier, VerifierVersion
from verifiers.services import publishing
from verifiers.services.publishing import NUL_MESSAGE, UNSET

MAX_TITLE_CHARS = 200
MAX_STATEMENT_CHARS = 100_000


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
        raise InvalidProblem("invalid problem", fields=fields)
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
    raise InvalidProblem("could not find a free slug", fields={"title": ["try another title"]})


def update_problem(
    *,
    author: AbstractBaseUser,
    problem: Problem,
    title: str = UNSET,
    statement_md: str = UNSET,
    currency: str = UNSET,
) -> Problem:
    """Change a draft problem; a published or retired problem's text and currency are frozen."""
    with transaction.atomic():
        problem = lock_own_problem(author=author, problem_id=problem.pk)
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
            if value is not UNSET
        }
        fields = _problem_field_errors(
            title=changes.get("title", problem.title),
            statement_md=changes.get("statement_md", problem.statement_md),
            currency=changes.get("currency", problem.currency),
        )
        if problem.is_demo and changes.get("currency", Currency.DEMO) != Currency.DEMO:
            fields.setdefault("currency", []).append("a demo problem trades in DEMO")
        if fields:
            raise InvalidProblem("invalid problem", fields=fields)
        if "title" in changes:
            changes["title"] = changes["title"].strip()
        for name, value in changes.items():
            setattr(problem, name, value)
        if changes:
            problem.save(update_fields=list(changes))
    return problem


@dataclass(frozen=True)
class ProblemPublication:
    """What :func:`publish_problem` did: the versions it published and the drafts it left,
    each with the reasons it could not be published (by field)."""

    problem: Problem
    versions: list[VerifierVersion] = field(default_factory=list)
    still_drafts: dict[str, dict[str, list[str]]] = field(default_factory=dict)


def publish_problem(*, author: AbstractBaseUser, problem: Problem) -> ProblemPublication:
    """Publish every draft verifier of the problem that the publishing rule allows, listing the
    problem with the first; the others stay drafts (the result says why).

    Refused (409, every draft's reasons, nothing changed) when no draft can be published on a
    draft problem. On a published problem with no publishable draft it changes nothing.
    """
    with transaction.atomic():
        problem = lock_own_problem(author=author, problem_id=problem.pk)
        if problem.status == ProblemStatus.RETIRED:
            raise NotEditable("this problem is retired and cannot be published again")
        drafts = publishing.lock_draft_verifiers(problem_id=problem.pk)
        if not drafts:
            if problem.status == ProblemStatus.PUBLISHED:
                return ProblemPublication(problem=problem)
            raise PublishRefused(
                "a problem is published with its first verifier: add one, dry-run it, publish",
                fields={"verifiers": ["no draft verifier to publish"]},
            )
        problem_reasons = get_problem_publish_refusals(problem=problem)
        still_drafts: dict[str, dict[str, list[str]]] = {}
        for verifier in drafts:
            reasons = publishing.publish_refusals(verifier=verifier)
            if reasons or problem_reasons:
                still_drafts[verifier.name] = {**problem_reasons, **reasons}
        publishable = [v for v in drafts if v.name not in still_drafts]
        if not publishable:
            raise PublishRefused(
                "no draft verifier can be published yet",
                fields={
                    f"{name}.{key}": why
                    for name, reasons in still_drafts.items()
                    for key, why in reasons.items()
                },
            )
        versions = [
            publish_locked(problem=problem, verifier=verifier, prefix=f"{verifier.name}.")
            for verifier in publishable
        ]
    return ProblemPublication(problem=problem, versions=versions, still_drafts=still_drafts)


def retire_problem(*, author: AbstractBaseUser, problem: Problem) -> Problem:
    """Retire a problem and all its verifiers: no new solutions and no new orders.

    Existing solutions, verdicts, entitlements and open orders are kept (their owners may
    still cancel open orders and read what they bought). Retiring twice changes nothing.
    A draft problem cannot be retired, and its draft verifiers stay drafts: "retired" is
    public, so retiring would show what was never published.
    """
    with transaction.atomic():
        problem = lock_own_problem(author=author, problem_id=problem.pk)
        if problem.status == ProblemStatus.RETIRED:
            return problem
        if problem.status == ProblemStatus.DRAFT:
            raise NotEditable(
                "a draft problem was never public: there is nothing to retire "
                "(it stays visible to you only)"
            )
        problem.status = ProblemStatus.RETIRED
        problem.save(update_fields=["status"])
        publishing.retire_problem_verifiers(problem_id=problem.pk)
    return problem


def publish_locked(*, problem: Problem, verifier: Verifier, prefix: str) -> VerifierVersion:
    """Freeze one verifier's draft, publishing its problem with it if still a draft.

    Precondition: the problem and the verifier rows are locked by the caller.
    """
    if problem.status == ProblemStatus.RETIRED:
        raise NotEditable("this problem is retired; its verifiers cannot be published")
    refusals = get_problem_publish_refusals(problem=problem)
    version = publishing.freeze_draft(verifier=verifier, prefix=prefix, refusals=refusals)
    if problem.status == ProblemStatus.DRAFT:
        problem.status = ProblemStatus.PUBLISHED
        problem.published_at = timezone.now()
        problem.save(update_fields=["status", "published_at"])
    return version


def lock_own_problem(*, author: AbstractBaseUser, problem_id: int) -> Problem:
    """The author's problem row, locked (the first lock of every authoring write)."""
    problem = Problem.objects.select_for_update().filter(pk=problem_id).first()
    if problem is None or problem.author_id != author.pk:
        raise NotFound("no such problem")
    return problem


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
            fields[name] = [NUL_MESSAGE]
    return fields
