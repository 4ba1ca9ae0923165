"""Activity in the browser: the header badge updates live when a verdict arrives (htmx
polling), the activity page says what happened, mark-as-read clears the badge; the API
token page creates a key shown once and revokes it. Desktop and phone widths."""

from __future__ import annotations

import pytest

from market.models import Problem
from market.services.solutions import submit_solution
from tests.waiting import scaled
from verifiers.selectors import get_active_version

pytestmark = pytest.mark.e2e


def no_horizontal_overflow(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.evaluate("window.innerWidth")
    assert width <= viewport, f"{page.url}: {width} px wide in a {viewport} px viewport"


def test_activity_badge_page_and_tokens(page, shots, demo, celery_worker, settings):
    from django.contrib.auth import get_user_model

    from tests.e2e.conftest import sign_up

    settings.ACTIVITY_BADGE_POLL_S = 1
    sign_up(page, "watcher")
    page.goto("/activity/")
    assert "Nothing yet" in page.locator("main").inner_text()
    shots(page, "activity-empty")

    page.goto("/problems/demo-factor-391/")
    user = get_user_model().objects.get(username="watcher")
    problem = Problem.objects.get(slug="demo-factor-391")
    verifier = problem.verifiers.get()
    submit_solution(
        solver=user, verifier_version=get_active_version(verifier=verifier), text="1 391"
    )
    # No reload: the badge's own polling brings the count.
    page.locator('#activity-badge [data-unread="1"]').wait_for(timeout=scaled(60) * 1000)
    shots(page, "badge-after-verdict")

    page.get_by_role("link", name="Activity: 1 unread").click()
    page.wait_for_url("**/activity/")
    text = page.locator("#activity").inner_text()
    assert "was judged REJECTED (WRONG_ANSWER), seed" in text
    # Visiting the page is reading it: the event keeps its "new" mark for this visit, the
    # badge is cleared, and no "Mark all as read" button is left to press.
    assert page.locator("#newly-read").inner_text().startswith("1 new since your last visit")
    assert page.locator("#activity tr.unread").count() == 1
    assert page.locator("#activity-badge [data-unread]").count() == 0
    assert page.get_by_role("button", name="Mark all as read").count() == 0
    shots(page, "activity-page")
    page.reload()
    assert page.locator("#activity tr.unread").count() == 0
    shots(page, "activity-read")

    page.get_by_role("link", name="API tokens").click()
    page.get_by_label("Name").fill("my agent")
    page.get_by_role("button", name="Create token").click()
    key = page.locator("#new-token-key").inner_text().strip()
    assert key.startswith("fm_")
    shots(page, "token-created")
    page.goto("/account/tokens/")
    assert key not in page.content()  # shown once
    page.get_by_role("button", name="Revoke").click()
    assert "revoked" in page.locator("#tokens").inner_text()

    page.set_viewport_size({"width": 390, "height": 844})
    for path, name in (("/activity/", "phone-activity"), ("/account/tokens/", "phone-tokens")):
        page.goto(path)
        no_horizontal_overflow(page)
        shots(page, name)
