"""Issue 27: a reconciliation job compares the ledger with Stripe's balance transactions
(listed through the real ``stripe`` library from a fake HTTP transport) and reports every
difference in cents; staff see the last run on the account page."""

from __future__ import annotations

import pytest

from market.payments.models import Deposit, DepositStatus, ReconciliationRun
from market.payments.services.reconciliation import reconcile_with_stripe
from market.payments.services.webhooks import handle_webhook
from tests.factories import UserFactory
from tests.payments.helpers import charge_refunded, completed_session, dispute, event, sign

pytestmark = pytest.mark.django_db


def deliver(evt):
    payload, header = sign(evt)
    return handle_webhook(payload=payload, signature_header=header)


def paid(user, amount, n):
    deposit = Deposit.objects.create(
        user=user, amount_minor=amount, checkout_session_id=f"cs_rec_{n}", status=DepositStatus.OPEN
    )
    deliver(event("checkout.session.completed", completed_session(deposit)))
    deposit.refresh_from_db()
    return deposit


def txn(n, category, amount):
    return {
        "id": f"txn_{n}",
        "object": "balance_transaction",
        "amount": amount,
        "fee": 30 if category == "charge" else 0,
        "currency": "usd",
        "reporting_category": category,
        "type": category,
    }


def page(data, has_more):
    return {"object": "list", "url": "/v1/balance_transactions", "has_more": has_more, "data": data}


def test_matching_figures_report_no_difference_over_two_pages(fake_stripe):
    user = UserFactory()
    first = paid(user, 10_000, 1)
    paid(user, 5_000, 2)
    deliver(event("charge.refunded", charge_refunded(first, 2_500)))
    deliver(event("charge.dispute.created", dispute(first, "dp_rec", 3_000, "needs_response")))
    fake_stripe.answer(
        "GET",
        "/v1/balance_transactions",
        200,
        page([txn(1, "charge", 10_000), txn(2, "charge", 5_000)], True),
    )
    fake_stripe.answer(
        "GET",
        "/v1/balance_transactions",
        200,
        page([txn(3, "refund", -2_500), txn(4, "dispute", -3_000)], False),
    )
    run = reconcile_with_stripe()
    assert run.differences == [] and run.difference_minor == 0
    assert run.ledger_minor == 15_000 - 2_500 - 3_000
    second_page = fake_stripe.requests_to("GET", "/v1/balance_transactions")[1]
    assert "starting_after=txn_2" in second_page.query


def test_every_difference_is_reported_in_cents(fake_stripe):
    user = UserFactory()
    deposit = paid(user, 10_000, 3)
    # Stripe refunded 6 000 that never reached us (a lost event, a dashboard refund).
    fake_stripe.answer(
        "GET",
        "/v1/balance_transactions",
        200,
        page([txn(5, "charge", 10_000), txn(6, "refund", -6_000)], False),
    )
    run = reconcile_with_stripe()
    assert run.differences == [
        {"what": "refund", "ledger_minor": 0, "stripe_minor": -6_000, "amount_minor": -6_000}
    ]
    assert run.difference_minor == -6_000
    assert deposit.refunded_minor == 0


def test_staff_see_the_last_run_on_the_account_page(client, fake_stripe):
    ReconciliationRun.objects.create(
        ledger_minor=10_000,
        stripe_minor=4_000,
        differences=[
            {"what": "refund", "ledger_minor": 0, "stripe_minor": -6_000, "amount_minor": -6_000}
        ],
    )
    staff = UserFactory(is_staff=True)
    client.force_login(staff)
    page_html = client.get("/account/").content.decode()
    assert "difference -60.00 USD" in page_html and "refund: -60.00 USD" in page_html
    client.force_login(UserFactory())
    assert "usd-reconciliation" not in client.get("/account/").content.decode()


def _beat_schedule(extra_env: dict[str, str]) -> list[str]:
    """The beat schedule's task names as a fresh process configures them."""
    import json
    import os
    import subprocess
    import sys

    code = (
        "import django, json; django.setup(); from django.conf import settings; "
        "print(json.dumps(sorted(e['task'] for e in settings.CELERY_BEAT_SCHEDULE.values())))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("STRIPE_")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", **extra_env)
    out = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_beat_reconciles_only_where_usd_is_on() -> None:
    assert "payments.reconcile_with_stripe" not in _beat_schedule({})
    with_stripe = _beat_schedule({"STRIPE_SECRET_KEY": "sk_test_placeholder"})
    assert "payments.reconcile_with_stripe" in with_stripe
