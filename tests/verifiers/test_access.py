"""verifiers.access: the problem's status compared by value (verifiers imports nothing of
market), and the submission's hand-written query held to the ORM's visibility rule."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from domain.errors import NotFound
from market.access import PUBLIC_PROBLEM_STATUSES
from market.models import ProblemStatus
from tests.factories import ProblemFactory, UserFactory, VerifierFactory, VerifierVersionFactory
from verifiers.access import (
    PUBLIC_PROBLEM_STATUS_VALUES,
    _visible_verifier,
    access_verifier,
    access_verifier_to_submit,
)
from verifiers.models import VerifierStatus, VerifierVersion


def test_verifier_access_uses_the_markets_public_problem_statuses():
    assert tuple(str(s) for s in PUBLIC_PROBLEM_STATUSES) == PUBLIC_PROBLEM_STATUS_VALUES
    assert PUBLIC_PROBLEM_STATUS_VALUES == (ProblemStatus.PUBLISHED, ProblemStatus.RETIRED)


@pytest.mark.django_db
def test_the_version_to_submit_to_follows_the_verifier_visibility_rule_in_one_statement():
    # Every problem and verifier status, seen by the author, another user and nobody: the
    # hand-written query answers exactly when access_verifier (the ORM's rule) does.
    author, other = UserFactory(), UserFactory()
    cases = []
    for problem_status in ProblemStatus.values:
        for verifier_status in VerifierStatus.values:
            problem = ProblemFactory(author=author, status=problem_status)
            verifier = VerifierFactory(problem=problem, status=verifier_status)
            VerifierVersionFactory(verifier=verifier, number=1, is_active=False)
            active = VerifierVersionFactory(verifier=verifier, number=2)
            cases += [(verifier, active, caller) for caller in (author, other, AnonymousUser())]

    for verifier, active, caller in cases:
        try:
            expected = access_verifier(user=caller, verifier_id=verifier.pk)
        except NotFound:
            expected = None
        with CaptureQueriesContext(connection) as queries:
            try:
                found = access_verifier_to_submit(user=caller, verifier_id=verifier.pk)
            except NotFound:
                found = None
        label = (verifier.problem.status, verifier.status, caller)
        if expected is None:
            assert found is None, label
            continue
        assert found is not None, label
        assert len(queries.captured_queries) == 1, label
        with CaptureQueriesContext(connection) as later:
            got_verifier, got_version = found
            assert (got_verifier.pk, got_version.pk) == (verifier.pk, active.pk)
            assert got_version.verifier is got_verifier
            assert got_verifier.problem.author_id == author.pk
            assert got_verifier.problem.status == verifier.problem.status
        assert later.captured_queries == []  # verifier and problem came with the version


def _orm_version_to_submit(user, verifier_id: int):
    """access_verifier_to_submit's version query as 30af107 wrote it (the ORM's)."""
    uid = user.pk if user is not None and user.is_authenticated else None
    version = (
        VerifierVersion.objects.select_related("verifier__problem")
        .filter(_visible_verifier(uid, "verifier__"), verifier_id=verifier_id)
        .filter(is_active=True)
        .order_by("-number")
        .first()
    )
    if version is not None:
        return version.verifier.pk, version.pk
    try:
        return access_verifier(user=user, verifier_id=verifier_id).pk, None
    except NotFound:
        return None


@pytest.mark.django_db
def test_every_caller_version_set_and_id_is_answered_as_the_orm_query_did():
    # The cases the status test above leaves out: which versions a verifier has (none, only
    # retired ones, two active ones: the highest number wins), who asks (staff sees no more
    # than anyone; an inactive author's rows are still theirs, the API refuses its token),
    # and ids that name nothing.
    author, other = UserFactory(), UserFactory()
    staff = UserFactory(is_staff=True, is_superuser=True)
    inactive_author = UserFactory(is_active=False)
    verifiers = []
    for owner in (author, inactive_author):
        for problem_status in (ProblemStatus.PUBLISHED, ProblemStatus.DRAFT):
            for verifier_status in (VerifierStatus.PUBLISHED, VerifierStatus.DRAFT):
                problem = ProblemFactory(author=owner, status=problem_status)
                versions = ((), ((1, False),), ((1, True), (3, True), (2, True)))
                for index, numbers in enumerate(versions):
                    verifier = VerifierFactory(
                        problem=problem, status=verifier_status, name=f"v{index}"
                    )
                    for number, active in numbers:
                        VerifierVersionFactory(verifier=verifier, number=number, is_active=active)
                    verifiers.append(verifier.pk)
    missing = max(verifiers) + 1
    callers = (author, inactive_author, other, staff, AnonymousUser(), None)
    for caller in callers:
        for verifier_id in (*verifiers, missing, 2**63 - 1):
            expected = _orm_version_to_submit(caller, verifier_id)
            try:
                verifier, version = access_verifier_to_submit(user=caller, verifier_id=verifier_id)
                found = verifier.pk, None if version is None else version.pk
            except NotFound:
                found = None
            assert found == expected, (caller, verifier_id)
            if found is not None and found[1] is not None:
                assert version.is_active and version.number == 3
