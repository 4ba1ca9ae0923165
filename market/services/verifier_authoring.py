"""An author's verifiers: add, edit, publish and retire them on the author's own problem.

Each function locks the author's problem row first (:func:`market.services.problems.
lock_own_problem`: someone else's problem is NotFound), checks the problem's state, and lets
:mod:`verifiers.services.publishing` change the verifier rows under that lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from market.models import Problem, ProblemStatus
from market.services.problems import lock_own_problem, publish_locked
from verifiers.exceptions import NotEditable
from verifiers.models import Verifier, VerifierVersion
from verifiers.services import publishing
from verifiers.services.publishing import UNSET


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
        values = _draft_values(locals())
        problem = lock_own_problem(author=author, problem_id=problem.pk)
        if problem.status == ProblemStatus.RETIRED:
            raise NotEditable("this problem is retired; it takes no new verifiers")
        return publishing.create_draft_verifier(
            problem_id=problem.pk,
            values=values,
        )


def update_verifier(
    *,
    author: AbstractBaseUser,
    verifier: Verifier,
    name: str = UNSET,
    language: str = UNSET,
    source: str = UNSET,
    time_limit_s: float = UNSET,
    memory_limit_mb: int = UNSET,
    lean_project: str = UNSET,
    is_source_public: bool = UNSET,
    reference_solutions: Sequence[str] = UNSET,
    wrong_solutions: Sequence[str] = UNSET,
) -> Verifier:
    """Edit a verifier's draft. On a published verifier the live version is unchanged until
    :func:`publish_verifier` freezes the edited draft into a new version."""
    with transaction.atomic():
        values = _draft_values(locals())
        lock_own_problem(author=author, problem_id=verifier.problem_id)
        return publishing.edit_draft_verifier(
            verifier_id=verifier.pk,
            values=values,
        )


def publish_verifier(*, author: AbstractBaseUser, verifier: Verifier) -> VerifierVersion:
    """Freeze the verifier's draft into a new active version (publishing the problem with it
    if it is still a draft). Publishing an unchanged draft again returns the live version."""
    with transaction.atomic():
        problem = lock_own_problem(author=author, problem_id=verifier.problem_id)
        verifier = publishing.lock_verifier(verifier_id=verifier.pk)
        return publish_locked(problem=problem, verifier=verifier, prefix="")


def retire_verifier(*, author: AbstractBaseUser, verifier: Verifier) -> Verifier:
    """Stop new submissions to this verifier; its solutions, asks and entitlements stay valid."""
    with transaction.atomic():
        lock_own_problem(author=author, problem_id=verifier.problem_id)
        return publishing.retire_verifier_row(verifier_id=verifier.pk)


def _draft_values(arguments: dict[str, Any]) -> dict[str, Any]:
    """The draft fields among a service's own keyword arguments (their names are the keys of
    :data:`verifiers.services.publishing.DRAFT_FIELDS`), so that each is listed once: in the
    signature."""
    return {key: arguments[key] for key in publishing.DRAFT_FIELDS}
