"""verifiers.access compares the problem's status by value (verifiers imports nothing of market)."""

from __future__ import annotations

from market.access import PUBLIC_PROBLEM_STATUSES
from market.models import ProblemStatus
from verifiers.access import PUBLIC_PROBLEM_STATUS_VALUES


def test_verifier_access_uses_the_markets_public_problem_statuses():
    assert tuple(str(s) for s in PUBLIC_PROBLEM_STATUSES) == PUBLIC_PROBLEM_STATUS_VALUES
    assert PUBLIC_PROBLEM_STATUS_VALUES == (ProblemStatus.PUBLISHED, ProblemStatus.RETIRED)
