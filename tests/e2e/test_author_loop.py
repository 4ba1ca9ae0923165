"""An author creates a problem with a Python verifier, dry-runs it, publishes it, and a
solution to it is judged."""

from __future__ import annotations

import pytest

from market.models import Problem, ProblemStatus
from verifiers.models import VerifierVersion

pytestmark = pytest.mark.e2e

VERIFIER = '''"""Solution format: the smallest prime larger than 100, as a decimal integer."""


def verify(solution, rng):
    return solution.strip() == "101"
'''


def test_author_loop(page, shots, celery_worker):
    from tests.e2e.conftest import sign_up

    sign_up(page, "writer")
    page.get_by_role("link", name="Author", exact=True).click()
    shots(page, "author-home")
    page.get_by_role("link", name="New problem").click()
    page.get_by_label("Title").fill("Next prime after 100")
    page.get_by_label("Statement (Markdown)").fill("Give the **smallest prime** larger than 100.")
    shots(page, "new-problem")
    page.get_by_role("button", name="Create draft").click()

    page.get_by_label("Verifier source", exact=True).fill(VERIFIER)
    page.get_by_label("Time limit (s)").fill("5")
    page.get_by_label("Reference solutions (must be ACCEPTED)").fill("101")
    page.get_by_label("Wrong solutions (must be REJECTED)").fill("103\n---\n100")
    shots(page, "verifier-form")
    page.get_by_role("button", name="Save draft").click()
    page.get_by_role("button", name="Run dry run").click()
    # Queued for the judge worker; the panel updates by itself (htmx polling) when it is done.
    page.locator("#dry-run-panel[data-status=done]").wait_for()
    assert page.locator("#dry-run-result").inner_text() == "passed"
    assert page.locator("#dry-run tbody").count() == 3  # one per sample, with its detail row
    shots(page, "dry-run-passed")

    # Not listed before publishing.
    assert Problem.objects.get(title="Next prime after 100").status == ProblemStatus.DRAFT
    page.get_by_role("button", name="Publish", exact=True).click()
    page.wait_for_url("**/problems/next-prime-after-100/")
    shots(page, "published")
    assert VerifierVersion.objects.get(verifier__problem__slug="next-prime-after-100").number == 1

    page.get_by_role("link", name="Problems", exact=True).click()
    page.get_by_role("link", name="Next prime after 100").click()
    page.get_by_label("Solution", exact=True).fill("101")
    with page.expect_navigation():
        page.get_by_role("button", name="Submit for judging").click()
    page.locator(".solution .verdict", has_text="ACCEPTED").wait_for()
    shots(page, "solution-accepted")
