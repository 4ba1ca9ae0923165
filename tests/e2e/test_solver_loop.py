"""A newcomer solves a Python demo problem, lists the solution and sells it to the bot."""

from __future__ import annotations

import pytest
from django.conf import settings

from market.money import format_minor
from market.services.bot import BID_PRICE_MINOR
from market.services.orders import fee_for

pytestmark = pytest.mark.e2e


def test_solver_loop(page, shots, demo, celery_worker):
    from tests.e2e.conftest import sign_up

    page.goto("/")
    shots(page, "home")
    sign_up(page, "solver")
    shots(page, "signed-up")

    page.locator('a[href="/problems/demo-factor-391/"]').first.click()
    page.wait_for_url("**/problems/demo-factor-391/")
    assert (
        page.locator("#demo-note").inner_text().startswith("Nothing on this page involves money.")
    )
    bot_bid = format_minor(BID_PRICE_MINOR, "DEMO")
    assert page.locator("#book .bids td.price").first.inner_text() == bot_bid
    shots(page, "problem-page")

    # A wrong solution: REJECTED appears while the page stays loaded (htmx polling).
    page.get_by_label("Solution", exact=True).fill("1 391")
    with page.expect_navigation():
        page.get_by_role("button", name="Submit for judging").click()
    page.evaluate("window.__sameDocument = true")
    shots(page, "wrong-submitted")
    page.locator(".solution .verdict", has_text="REJECTED").wait_for()
    assert page.evaluate("window.__sameDocument") is True
    shots(page, "wrong-rejected")

    # The right one: ACCEPTED, and a "List for sale" form appears on it.
    page.get_by_label("Solution", exact=True).fill("17 23")
    with page.expect_navigation():
        page.get_by_role("button", name="Submit for judging").click()
    page.evaluate("window.__sameDocument = true")
    accepted = page.locator(".solution", has=page.locator(".verdict", has_text="ACCEPTED"))
    accepted.wait_for()
    assert page.evaluate("window.__sameDocument") is True
    shots(page, "right-accepted")

    # List an ask below the bot's bid: it trades at the bid (the resting order's) price.
    accepted.get_by_label("Price (DEMO)").fill("9.00")
    with page.expect_navigation():
        accepted.get_by_role("button", name="List for sale").click()
    page.locator("#trades tr.trade").first.wait_for()
    assert page.locator("#trades tr.trade td.num").first.inner_text() == bot_bid
    shots(page, "sold")

    page.get_by_role("link", name="Account (solver)").click()
    expected = settings.DEMO_SIGNUP_GRANT_MINOR + BID_PRICE_MINOR - fee_for(BID_PRICE_MINOR)
    assert page.locator("#balance-DEMO-available").inner_text() == format_minor(expected, "DEMO")
    shots(page, "account-balance")
