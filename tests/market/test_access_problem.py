"""``access_problem`` (one SQL text written once, issue 29) answers what the ORM's query did:
the same instance, field by field, for each kind of caller, and NotFound for the rest."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from market.access import access_problem
from market.exceptions import NotFound
from market.models import Problem, ProblemStatus
from tests.factories import ProblemFactory, UserFactory

pytestmark = pytest.mark.django_db


def _fields(problem: Problem) -> dict[str, object]:
    return {
        field.attname: getattr(problem, field.attname) for field in Problem._meta.concrete_fields
    }


@pytest.mark.parametrize("status", [ProblemStatus.PUBLISHED, ProblemStatus.RETIRED])
def test_a_public_problem_is_the_orms_instance_for_anyone(status):
    problem = ProblemFactory(status=status)
    for user in (AnonymousUser(), UserFactory(), problem.author, None):
        with CaptureQueriesContext(connection) as captured:
            found = access_problem(user=user, problem_id=problem.pk)
        assert len(captured) == 1
        assert isinstance(found, Problem) and not found._state.adding
        assert _fields(found) == _fields(Problem.objects.get(pk=problem.pk))


def test_a_draft_is_its_authors_only():
    draft = ProblemFactory(status=ProblemStatus.DRAFT)
    assert _fields(access_problem(user=draft.author, problem_id=draft.pk)) == _fields(
        Problem.objects.get(pk=draft.pk)
    )
    for user in (AnonymousUser(), UserFactory(), None):
        with pytest.raises(NotFound, match="no such problem"):
            access_problem(user=user, problem_id=draft.pk)


@pytest.mark.parametrize("problem_id", [0, -1, 2**63, 10**30, 999_999_999])
def test_a_missing_or_impossible_id_is_not_found(problem_id):
    with pytest.raises(NotFound, match="no such problem"):
        access_problem(user=UserFactory(), problem_id=problem_id)
