"""On a server without a Lean toolchain, a Lean demo problem says Lean judging is unavailable,
and a submitted Lean solution stays pending with that reason (never rejected)."""

from __future__ import annotations

import pytest

from market.models import Solution, SolutionStatus, VerdictRecord
from verifiers.models import Language, VerifierVersion

pytestmark = pytest.mark.e2e

ANSWER = "import Verifier\n\ntheorem answer : Spec := by decide\n"


def test_lean_solution_stays_pending_without_toolchain(
    page, shots, demo, celery_worker, monkeypatch
):
    from judge.lean import toolchain_status
    from tests.e2e.conftest import sign_up

    assert toolchain_status().available is False, "this test is for a server without Lean"
    version = VerifierVersion.objects.select_related("verifier__problem").get(
        language=Language.LEAN, is_active=True, source__contains="2 + 2 = 4"
    )
    problem = version.verifier.problem
    assert problem.is_demo

    sign_up(page, "leanfan")
    page.goto(f"/problems/{problem.slug}/")
    banner = page.locator("#lean-unavailable")
    assert banner.inner_text().startswith("Lean judging is unavailable on this server.")
    shots.both(page, "lean-problem-unavailable")

    # The starter solution of this Spec : Prop goes into the form with one click.
    page.get_by_role("button", name="Use this starter").click()
    starter = page.get_by_label("Solution", exact=True).input_value()
    assert starter == (
        "import Verifier\n\ntheorem answer : Spec := by\n  sorry  -- replace with your proof\n"
    )

    page.get_by_label("Solution", exact=True).fill(ANSWER)
    with page.expect_navigation():
        page.get_by_role("button", name="Submit for judging").click()
    page.evaluate("window.__sameDocument = true")
    flash = page.locator(".messages").inner_text()
    assert "Lean judging is unavailable on this server, so it stays pending" in flash
    assert "verdict appears below" not in flash
    shots.both(page, "lean-submitted")
    reason = page.locator(".solution .pending-reason")
    reason.wait_for()
    assert reason.inner_text().startswith("Pending: Lean judging is unavailable:")
    assert page.evaluate("window.__sameDocument") is True
    shots(page, "lean-pending-with-reason")

    # The page shows the reason only once the worker has parked the solution in the database:
    # the solution is parked, not rejected (no fixed sleep: the reason above is the condition).
    solution = Solution.objects.get(solver__username="leanfan")
    assert solution.status == SolutionStatus.PENDING
    assert solution.pending_reason.startswith("Lean judging is unavailable: ")
    assert not VerdictRecord.objects.filter(solution=solution).exists()
    assert page.locator(".solution .verdict").inner_text() == "PENDING"
