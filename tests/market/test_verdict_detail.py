"""The detail a solver reads never carries a private verifier's exception message."""

from __future__ import annotations

import pytest

from activity.models import Event
from judge.verdict import Outcome, Reason, Verdict
from market.services.solutions import record_verdict
from tests.factories import SolutionFactory

pytestmark = pytest.mark.django_db

HIDDEN = Verdict(
    Outcome.REJECTED,
    Reason.RUNTIME_ERROR,
    "TypeError: cannot determine truth value of Relational: x < 987654321",
    seed=3,
    solver_detail="the verifier raised TypeError (the message is shown to its author only)",
)


def test_a_private_verifier_records_the_redacted_detail() -> None:
    solution = SolutionFactory()
    verifier = solution.verifier_version.verifier
    verifier.is_source_public = False
    verifier.save(update_fields=["is_source_public"])

    record_verdict(solution_id=solution.pk, verdict=HIDDEN)

    solution.refresh_from_db()
    assert solution.verdict.detail == HIDDEN.solver_detail
    assert "987654321" not in solution.verdict.detail
    # The solver's activity event (page, API, webhooks) carries the same redacted line.
    event = Event.objects.get(user=solution.solver, key=f"verdict:{solution.pk}")
    assert event.payload["detail"] == HIDDEN.solver_detail


def test_a_public_verifier_records_the_full_detail() -> None:
    solution = SolutionFactory()
    verifier = solution.verifier_version.verifier
    verifier.is_source_public = True
    verifier.save(update_fields=["is_source_public"])

    record_verdict(solution_id=solution.pk, verdict=HIDDEN)

    solution.refresh_from_db()
    assert solution.verdict.detail == HIDDEN.detail


def test_a_second_verdict_for_a_judged_solution_changes_nothing() -> None:
    solution = SolutionFactory()
    record_verdict(solution_id=solution.pk, verdict=HIDDEN)
    accepted = Verdict(Outcome.ACCEPTED, None, "", seed=4)

    record_verdict(solution_id=solution.pk, verdict=accepted)

    solution.refresh_from_db()
    assert solution.status == "rejected"
    assert solution.verdict.seed == 3
    assert Event.objects.filter(key=f"verdict:{solution.pk}").count() == 1
