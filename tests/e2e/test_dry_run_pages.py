"""The verifier page after a dry run, at 1280x800 and 390x844: a verifier that raises on a
sample is a red row with its whole detail readable and cannot be published; once a fixed
draft's dry run passes, the publish panel says so without a reload, and publishing works."""

from __future__ import annotations

import pytest

from market.services.problems import create_problem
from market.services.verifier_authoring import create_verifier, update_verifier
from verifiers.drafts import draft_fingerprint, draft_snapshot
from verifiers.models import DryRun, DryRunStatus
from verifiers.services.dry_runs import perform_dry_run

pytestmark = pytest.mark.e2e

RAISES = '''"""An integer: 3."""


def verify(solution, rng):
    return int(solution) == 3
'''
FIXED = '''"""An integer: 3."""


def verify(solution, rng):
    return solution.strip() == "3"
'''


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_dry_run_rows_and_the_publish_panel_say_what_is_true(page, shots, celery_worker, size):
    from django.contrib.auth import get_user_model

    from tests.e2e.conftest import sign_up

    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    sign_up(page, f"dryrun{width}")
    author = get_user_model().objects.get(username=f"dryrun{width}")
    problem = create_problem(author=author, title=f"Three {width}", statement_md="Say 3.")
    verifier = create_verifier(
        author=author,
        problem=problem,
        language="python",
        source=RAISES,
        time_limit_s=5,
        reference_solutions=["3"],
        wrong_solutions=["4", "abc"],
    )
    page.goto(f"/author/verifiers/{verifier.pk}/")
    page.get_by_role("button", name="Run dry run").click()
    page.locator("#dry-run-panel[data-status=done]").wait_for(timeout=90_000)

    assert page.locator("#dry-run-result").inner_text() == "failed"
    rows = page.locator("#dry-run-panel tbody")
    assert rows.count() == 3
    raised = rows.nth(2)
    assert raised.get_attribute("class") == "bad"
    assert raised.locator(".badge").inner_text() == "wrong: REJECTED · RUNTIME_ERROR"
    assert "the verifier raised on this sample instead of returning False" in raised.inner_text()
    detail = raised.locator("pre.detail")
    assert "ValueError: invalid literal for int() with base 10: 'abc'" in detail.inner_text()
    # The detail is wrapped inside the page, never clipped: no sideways scroll, and its box
    # ends inside the viewport.
    assert detail.evaluate("e => e.scrollWidth <= e.clientWidth")
    box = detail.bounding_box()
    assert box is not None and box["x"] + box["width"] <= width
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # The publish panel says why not, in the service's words.
    why = page.locator("#publish-why").inner_text()
    assert "the last dry run failed: wrong sample 2: expected REJECTED, the verifier raised" in why
    shots(page, "raised-red-row")

    update_verifier(author=author, verifier=verifier, source=FIXED)
    verifier.refresh_from_db()
    # A dry run the page sees queued, judged below by the worker's own service: so the page
    # is certainly open, polling, when it finishes.
    queued = DryRun.objects.create(
        verifier=verifier,
        fingerprint=draft_fingerprint(verifier),
        draft=draft_snapshot(verifier),
        status=DryRunStatus.PENDING,
    )
    page.reload()
    page.evaluate("window.__sameDocument = true")
    assert page.locator("#dry-run-result").inner_text() == "queued"
    assert "the dry run of this draft has not finished yet" in (
        page.locator("#publish-why").inner_text()
    )
    perform_dry_run(dry_run_id=queued.pk)
    page.locator("#dry-run-panel[data-status=done]").wait_for(timeout=90_000)
    assert page.locator("#dry-run-result").inner_text() == "passed"
    page.locator("#publish-ready").wait_for()
    assert page.locator("#publish-ready").inner_text() == (
        "Ready: the dry run of this draft passed. Publishing lists the problem if it is not "
        "listed yet."
    )
    assert page.locator("#publish-why").count() == 0
    assert page.evaluate("window.__sameDocument") is True
    shots(page, "passed-ready")

    with page.expect_navigation():
        page.get_by_role("button", name="Publish", exact=True).click()
    assert page.url.endswith(f"/problems/{problem.slug}/")
    assert "Published version 1: the problem is listed and takes solutions." in (
        page.locator(".messages").inner_text()
    )


DOES_NOT_COMPILE = '''"""An integer: 3."""
def verify(solution, rng)
    return solution.strip() == "3"
'''


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_draft_that_does_not_compile_is_one_error_and_publish_problem_leaves_it(
    page, shots, celery_worker, size
):
    from django.contrib.auth import get_user_model

    from tests.e2e.conftest import sign_up
    from tests.verifiers.helpers import run_dry_run

    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    sign_up(page, f"compile{width}")
    author = get_user_model().objects.get(username=f"compile{width}")
    problem = create_problem(author=author, title=f"Compile {width}", statement_md="Say 3.")
    good = create_verifier(
        author=author,
        problem=problem,
        language="python",
        source=FIXED,
        time_limit_s=5,
        reference_solutions=["3"],
        wrong_solutions=["4"],
    )
    run_dry_run(author=author, verifier=good)
    broken = create_verifier(
        author=author,
        problem=problem,
        name="broken",
        language="python",
        source=DOES_NOT_COMPILE,
        reference_solutions=["3"],
        wrong_solutions=["4", "5", "6"],
    )
    page.goto(f"/author/verifiers/{broken.pk}/")
    page.get_by_role("button", name="Run dry run").click()
    page.locator("#dry-run-panel[data-status=done]").wait_for(timeout=90_000)

    assert page.locator("#dry-run-result").inner_text() == "failed"
    assert page.locator("#dry-run-summary").inner_text() == (
        "the verifier does not compile: expected ':' (line 2)"
    )
    # One error, said once: no row per sample, no green badge, no static-check echo.
    assert page.locator("#dry-run-not-run").inner_text() == (
        "None of the 4 samples was judged: the verifier does not compile (see the error above)"
    )
    assert page.locator("#dry-run-panel tbody").count() == 0
    assert page.locator("#dry-run-panel .badge.accepted").count() == 0
    assert page.locator("#dry-run-panel .errorlist").count() == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shots(page, "does-not-compile")

    page.goto(f"/author/problems/{problem.pk}/")
    with page.expect_navigation():
        page.get_by_role("button", name="Publish problem").click()
    messages = page.locator(".messages").inner_text()
    assert "Published with main: the problem is listed and takes solutions." in messages
    assert (
        "Verifier broken stays a private draft: the last dry run failed: the verifier does not "
        "compile: expected ':' (line 2)"
    ) in messages
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shots(page, "published-with-main")
