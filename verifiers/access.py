"""Permission-checked fetchers of verifiers and dry runs: "missing" and "not yours" raise the
same NotFound (Zulip's ``access_stream_by_id``).

``verifiers`` sits below ``market`` and imports nothing of it, so the problem's status is
compared by value here; ``tests/verifiers/test_access.py`` holds these values equal to
``market.access.PUBLIC_PROBLEM_STATUSES``.
"""

from __future__ import annotations

import functools
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import connection
from django.db.models import Q

from domain.errors import NotFound
from domain.rows import column_list, fetch_row, instance_from_row, instance_with_related
from verifiers.models import DryRun, Verifier, VerifierStatus, VerifierVersion

# The values of market.models.ProblemStatus.PUBLISHED and .RETIRED: a problem solvers see.
PUBLIC_PROBLEM_STATUS_VALUES = ("published", "retired")

User = AbstractBaseUser | AnonymousUser


def _user_id(user: User | None) -> int | None:
    return user.pk if user is not None and user.is_authenticated else None


def _visible_verifier(uid: int | None, prefix: str = "") -> Q:
    visible = Q(
        **{
            f"{prefix}problem__status__in": PUBLIC_PROBLEM_STATUS_VALUES,
            f"{prefix}status__in": (VerifierStatus.PUBLISHED, VerifierStatus.RETIRED),
        }
    )
    if uid is not None:
        visible |= Q(**{f"{prefix}problem__author_id": uid})
    return visible


def access_verifier(*, user: User | None, verifier_id: int) -> Verifier:
    """A published or retired verifier of a visible problem, or any verifier of the caller's."""
    visible = _visible_verifier(_user_id(user))
    verifier = Verifier.objects.select_related("problem").filter(visible, pk=verifier_id).first()
    if verifier is None:
        raise NotFound("no such verifier")
    return verifier


def access_verifier_to_submit(
    *, user: User | None, verifier_id: int
) -> tuple[Verifier, VerifierVersion | None]:
    """:func:`access_verifier` and the version new solutions are judged against (None when it
    has no active version): one query when it has one (issue 29: a submission's two reads)."""
    uid = _user_id(user)
    sql, version_fields, verifier_fields, problem_fields = _version_to_submit_query()
    public = (*PUBLIC_PROBLEM_STATUS_VALUES, VerifierStatus.PUBLISHED, VerifierStatus.RETIRED)
    row = fetch_row(sql, [verifier_id, *map(str, public), uid])
    if row is None:
        return access_verifier(user=user, verifier_id=verifier_id), None
    first = len(version_fields)
    version = instance_from_row(VerifierVersion, version_fields, row[:first])
    verifier = instance_with_related(
        Verifier, verifier_fields, row[first:], "problem", problem_fields
    )
    VerifierVersion.verifier.field.set_cached_value(version, verifier)
    return verifier, version


@functools.cache
def _version_to_submit_query() -> tuple[str, list[Any], list[Any], list[Any]]:
    """:func:`access_verifier_to_submit`'s SQL and the fields of its three parts (built once
    per process): every submission ran it, and the ORM compiled its select_related query with
    the visibility rule each time (~0.8 ms of CPU, issue 29). The rule is
    :func:`_visible_verifier`'s: public problem and verifier, or the caller's own problem (an
    anonymous caller's NULL matches no author)."""
    quote = connection.ops.quote_name
    verifier_key: Any = VerifierVersion._meta.get_field("verifier")
    problem_key: Any = Verifier._meta.get_field("problem")
    problem_meta = problem_key.related_model._meta
    version_fields = list(VerifierVersion._meta.concrete_fields)
    verifier_fields = list(Verifier._meta.concrete_fields)
    problem_fields = list(problem_meta.concrete_fields)
    sql = (
        f"SELECT {column_list(version_fields, 'v')}, {column_list(verifier_fields, 'f')},"  # noqa: S608 - names from the models
        f" {column_list(problem_fields, 'p')}"
        f" FROM {quote(VerifierVersion._meta.db_table)} v"
        f" JOIN {quote(Verifier._meta.db_table)} f ON f.id = v.{quote(verifier_key.column)}"
        f" JOIN {quote(problem_meta.db_table)} p ON p.id = f.{quote(problem_key.column)}"
        " WHERE v.verifier_id = %s AND v.is_active"
        " AND ((p.status IN (%s, %s) AND f.status IN (%s, %s)) OR p.author_id = %s)"
        " ORDER BY v.number DESC LIMIT 1"
    )
    return sql, version_fields, verifier_fields, problem_fields


def access_own_verifier(*, user: User | None, verifier_id: int) -> Verifier:
    """A verifier of one of the caller's problems, in any state."""
    uid = _user_id(user)
    verifier = (
        Verifier.objects.select_related("problem")
        .filter(pk=verifier_id, problem__author_id=uid)
        .first()
    )
    if verifier is None or uid is None:
        raise NotFound("no such verifier")
    return verifier


def access_own_dry_run(*, user: User | None, dry_run_id: int) -> DryRun:
    """A dry run of one of the caller's verifiers."""
    uid = _user_id(user)
    dry_run = (
        DryRun.objects.select_related("verifier__problem")
        .filter(pk=dry_run_id, verifier__problem__author_id=uid)
        .first()
    )
    if dry_run is None or uid is None:
        raise NotFound("no such dry run")
    return dry_run
