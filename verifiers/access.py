"""Permission-checked fetchers of verifiers and dry runs: "missing" and "not yours" raise the
same NotFound (Zulip's ``access_stream_by_id``).

``verifiers`` sits below ``market`` and imports nothing of it, so the problem's status is
compared by value here; ``tests/verifiers/test_access.py`` holds these values equal to
``market.access.PUBLIC_PROBLEM_STATUSES``.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q

from domain.errors import NotFound
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
    version = (
        VerifierVersion.objects.select_related("verifier__problem")
        .filter(_visible_verifier(_user_id(user), "verifier__"), verifier_id=verifier_id)
        .filter(is_active=True)
        .order_by("-number")
        .first()
    )
    if version is not None:
        return version.verifier, version
    return access_verifier(user=user, verifier_id=verifier_id), None


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
