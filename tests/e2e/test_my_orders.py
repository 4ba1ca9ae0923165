""" "My open orders" follows the book: when someone sells into my bid, the filled bid leaves the
panel without a reload (at both sizes), so no Cancel button answers "already filled"."""

from __future__ import annotations

import pytest

from market.models import Problem
from market.money import Money
from market.services.orders import place_ask
from tests.factories import UserFactory, accepted_solution
from tests.waiting import scaled

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_filled_bid_leaves_my_open_orders_without_a_reload(page, demo, size):
    from tests.e2e.conftest import sign_up

    page.set_viewport_size({"width": size[0], "height": size[1]})
    sign_up(page, f"orders{size[0]}")
    page.goto("/problems/demo-factor-391/")
    page.get_by_label("Price (DEMO)").fill("20.00")
    page.get_by_label("Copies").fill("1")
    with page.expect_navigation():
        page.get_by_role("button", name="Place bid").click()
    panel = page.locator("#my-orders")
    assert "My open orders" in panel.inner_text()
    assert panel.get_by_role("button", name="Cancel bid at 20.00 DEMO").is_visible()

    page.evaluate("window.__sameDocument = true")
    problem = Problem.objects.get(slug="demo-factor-391")
    version = problem.verifiers.get().versions.get(is_active=True)
    seller = UserFactory()
    solution = accepted_solution(verifier_version=version, solver=seller, text="17 23\n")
    place_ask(seller=seller, solution=solution, price=Money(1_500, "DEMO"), quantity=1)

    # My bid (20.00) is above the bot's 10.00: the ask fills it. The book's polling brings
    # the panel along: the filled bid is gone, in the same document.
    page.locator("#my-orders section").wait_for(state="detached", timeout=scaled(60) * 1000)
    assert panel.get_by_role("button", name="Cancel bid at 20.00 DEMO").count() == 0
    assert page.evaluate("window.__sameDocument") is True
