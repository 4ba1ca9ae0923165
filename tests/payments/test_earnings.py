"""The author's earnings page (/account/earnings/): each USD sale, what became of it and why
a sale was taken back; whether the books last matched Stripe's."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from market.payments.models import (
    ConnectedAccount,
    DepositRefund,
    ReconciliationRun,
    Withdrawal,
)
from market.payments.services.proceeds import release_matured_proceeds
from tests.factories import UserFactory
from tests.payments.helpers import dispute, event
from tests.payments.test_provenance import after_window, deliver, paid_deposit, sell_to

pytestmark = pytest.mark.django_db


def test_earnings_page_says_why_a_sale_was_reversed(client):
    buyer, seller = UserFactory(), UserFactory()
    deposit = paid_deposit(buyer, 10_000)
    trade = sell_to(buyer, seller, 10_000)
    kept = sell_to(paid_deposit(UserFactory(), 2_000).user, seller, 2_000)
    deliver(event("charge.dispute.created", dispute(deposit, "dp_e", 10_000, "needs_response")))
    deliver(event("charge.dispute.closed", dispute(deposit, "dp_e", 10_000, "lost")))
    client.force_login(seller)

    page = client.get("/account/earnings/").content.decode()

    row = page[page.index(f'id="sale-{trade.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "Reversed" in row and "100.00 USD" in row and "until" not in row
    assert "95.00 USD of your sale" in row and "a dispute of the buyer" in row
    other = page[page.index(f'id="sale-{kept.pk}"') :]
    other = other[: other.index("</tr>")]
    assert "Pending until" in other and "&mdash;" in other
    assert "Kept from sales</dt><dd>19.00 USD" in page
    assert "Taken back</dt><dd>95.00 USD" in page


def test_earnings_page_shows_pending_and_withdrawable_without_the_account_panels_history(
    client,
):
    seller = UserFactory()
    sell_to(paid_deposit(UserFactory(), 10_000).user, seller, 10_000)
    assert release_matured_proceeds(now=after_window()) == 1
    sell_to(paid_deposit(UserFactory(), 2_000).user, seller, 2_000)
    client.force_login(seller)

    with CaptureQueriesContext(connection) as queries:
        page = client.get("/account/earnings/").content.decode()

    assert "Pending</dt><dd>19.00 USD" in page
    assert "Withdrawable now</dt><dd>95.00 USD" in page
    # Its three balance figures only: none of the account page's lists or Stripe account.
    panel_only = [model._meta.db_table for model in (Withdrawal, DepositRefund, ConnectedAccount)]
    read = [table for table in panel_only for q in queries if f'"{table}"' in q["sql"]]
    assert read == []


def test_earnings_page_shows_the_last_reconciliation_without_platform_figures(client):
    user = UserFactory()
    ReconciliationRun.objects.create(
        ledger_minor=10_000,
        stripe_minor=4_000,
        differences=[
            {
                "what": "charge",
                "ledger_minor": 10_000,
                "stripe_minor": 4_000,
                "amount_minor": -6_000,
            }
        ],
    )
    client.force_login(user)
    page = client.get("/account/earnings/").content.decode()
    assert "1 difference under review" in page
    assert "60.00" not in page and "100.00" not in page
    staff = UserFactory(is_staff=True)
    client.force_login(staff)
    page = client.get("/account/earnings/").content.decode()
    assert "difference −60.00 USD (-6000 cents)" in page or "(-6000 cents)" in page


def test_earnings_page_needs_a_login(client):
    response = client.get("/account/earnings/")
    assert response.status_code == 302 and "/login/" in response["Location"]
