"""Reads of the verifiers app."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Prefetch, QuerySet

from market.models import Problem
from verifiers.models import DryRun, Verifier, VerifierStatus, VerifierVersion


def list_author_problems(*, author: AbstractBaseUser) -> QuerySet[Problem]:
    """The author's problems in every state, newest first, with their verifiers."""
    return (
        Problem.objects.filter(author_id=author.pk)
        .prefetch_related(Prefetch("verifiers", queryset=Verifier.objects.order_by("id")))
        .order_by("-id")
    )


def get_author_problem(*, problem_id: int) -> Problem:
    """A problem with its verifiers, fresh from the database (after a write by its author).

    Not permission-checked: callers fetch through ``market.access.access_own_problem`` first.
    """
    return Problem.objects.prefetch_related(
        Prefetch("verifiers", queryset=Verifier.objects.order_by("id"))
    ).get(pk=problem_id)


def list_problem_verifiers(*, problem: Problem) -> QuerySet[Verifier]:
    """A problem's verifiers that solvers see (published or retired), with their versions."""
    return (
        Verifier.objects.filter(problem=problem)
        .exclude(status=VerifierStatus.DRAFT)
        .prefetch_related(
            Prefetch("versions", queryset=VerifierVersion.objects.order_by("-number"))
        )
        .order_by("id")
    )


def get_active_version(*, verifier: Verifier) -> VerifierVersion | None:
    """The version that new solutions to ``verifier`` are judged against, if any."""
    return verifier.versions.filter(is_active=True).order_by("-number").first()


def get_latest_dry_run(*, verifier: Verifier) -> DryRun | None:
    return verifier.dry_runs.order_by("-id").first()


def list_dry_runs(*, verifier: Verifier) -> QuerySet[DryRun]:
    return verifier.dry_runs.order_by("-id")
