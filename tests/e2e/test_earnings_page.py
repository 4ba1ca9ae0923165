"""The author's earnings page in a browser: a sale whose buyer's payment was disputed and
lost says so, with the amount formatted; the other sale stays pending (both sizes)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_seller_sees_why_a_sale_was_reversed(page, shots, settings, size):
    from django.contrib.auth import get_user_model

    from tests.e2e.conftest import sign_up
    from tests.factories import UserFactory
    from tests.payments.helpers import WEBHOOK_SECRET, dispute, event
    from tests.payments.test_provenance import deliver, paid_deposit, sell_to

    settings.STRIPE_SECRET_KEY = "sk_test_formalmarket_fake"
    settings.STRIPE_WEBHOOK_SECRET = WEBHOOK_SECRET
    page.set_viewport_size({"width": size[0], "height": size[1]})
    sign_up(page, f"earner{size[0]}")
    seller = get_user_model().objects.get(username=f"earner{size[0]}")
    deposit = paid_deposit(UserFactory(), 10_000)
    reversed_sale = sell_to(deposit.user, seller, 10_000)
    kept_sale = sell_to(paid_deposit(UserFactory(), 2_000).user, seller, 2_000)
    deliver(event("charge.dispute.created", dispute(deposit, "dp_e2e", 10_000, "needs_response")))
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_e2e", 10_000, "lost")))

    page.goto("/account/")
    page.get_by_role("link", name="Earnings: every sale and what became of it").click()
    page.wait_for_url("**/account/earnings/")
    row = page.locator(f"#sale-{reversed_sale.pk}")
    row.filter(has_text="Reversed").wait_for()
    text = row.inner_text()
    assert "95.00 USD of your sale" in text and "until" not in text
    assert "a dispute of the buyer's payment" in text and "was lost" in text
    assert "Pending until" in page.locator(f"#sale-{kept_sale.pk}").inner_text()
    summary = page.locator("#earnings-summary").inner_text()
    assert "19.00 USD" in summary and "95.00 USD" in summary
    shots.both(page, "earnings")
