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
    access_verifier,
    access_verifier_to_submit,
)
from verifiers.models import VerifierStatus


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
