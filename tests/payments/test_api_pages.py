"""The HTTP surface: webhook endpoint, REST API, the USD panel, and USD disabled everywhere
when no Stripe keys are configured (the DEMO market unaffected)."""

from __future__ import annotations

import time

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from rest_framework.test import APIClient

from market.models import AccountKind
from market.money import Currency, Money
from market.payments.exceptions import UsdDisabled
from market.payments.models import ConnectedAccount, Deposit, StripeEvent
from market.payments.panel import usd_panel_context
from market.payments.services.deposits import create_deposit_session
from market.services.accounts import grant_demo_credits
from market.services.orders import place_bid
from tests.factories import ProblemFactory, UserFactory
from tests.market.helpers import balance
from tests.payments import fakes
from tests.payments.helpers import (
    assert_payments_invariants,
    completed_session,
    earn_proceeds,
    event,
    sign,
)

pytestmark = pytest.mark.django_db

WEBHOOK = "/payments/webhooks/stripe/"


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def post_webhook(client, payload: bytes, header: str):
    return client.post(
        WEBHOOK, data=payload, content_type="application/json", HTTP_STRIPE_SIGNATURE=header
    )


def test_webhook_endpoint_answers_200_then_200_duplicate_and_400_when_tampered(client, fake_stripe):
    user = UserFactory()
    deposit = Deposit.objects.create(
        user=user, amount_minor=1_500, checkout_session_id="cs_h", status="open"
    )
    payload, header = sign(event("checkout.session.completed", completed_session(deposit)))

    first = post_webhook(client, payload, header)
    assert first.status_code == 200
    assert first.json() == {"received": True, "duplicate": False, "outcome": "processed"}
    again = post_webhook(client, payload, header)
    assert again.status_code == 200 and again.json()["duplicate"] is True

    bad = post_webhook(client, payload.replace(b"1500", b"9500"), header)
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "payments:invalid-webhook"
    stale_payload, stale_header = sign(
        event("checkout.session.completed", completed_session(deposit)),
        timestamp=int(time.time()) - 10_000,
    )
    assert post_webhook(client, stale_payload, stale_header).status_code == 400
    assert balance(user, currency="USD") == 1_500
    assert StripeEvent.objects.count() == 1
    assert_payments_invariants()


def test_webhook_out_of_order_answers_409_so_stripe_retries(client):
    payload, header = sign(
        event(
            "charge.refunded",
            {
                "id": "ch_x",
                "object": "charge",
                "payment_intent": "pi_unknown",
                "amount_refunded": 100,
            },
        )
    )
    response = post_webhook(client, payload, header)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "payments:event-out-of-order"
    assert StripeEvent.objects.count() == 0


def test_api_deposit_returns_checkout_url_and_replays_idempotency_key(fake_stripe):
    user = UserFactory()
    fake_stripe.answer("POST", "/v1/checkout/sessions", 200, fakes.checkout_session("cs_api"))
    client = api(user)
    response = client.post(
        "/payments/api/deposits/",
        {"amount_minor": 2_000},
        format="json",
        HTTP_IDEMPOTENCY_KEY="dep-1",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["checkout_url"] == "https://checkout.stripe.com/c/pay/cs_api"
    assert body["status"] == "open" and body["amount_minor"] == 2_000
    form = fake_stripe.requests[0].form
    assert form["success_url"] == (
        "https://market.test/payments/deposit/return/?session_id={CHECKOUT_SESSION_ID}"
    )
    assert form["cancel_url"] == "https://market.test/payments/deposit/cancelled/"

    replay = client.post(
        "/payments/api/deposits/",
        {"amount_minor": 2_000},
        format="json",
        HTTP_IDEMPOTENCY_KEY="dep-1",
    )
    assert replay.json()["id"] == body["id"]
    assert replay["Idempotent-Replayed"] == "true"
    assert len(fake_stripe.requests) == 1
    other = client.post(
        "/payments/api/deposits/",
        {"amount_minor": 3_000},
        format="json",
        HTTP_IDEMPOTENCY_KEY="dep-1",
    )
    assert other.status_code == 422
    assert Deposit.objects.count() == 1
    listed = client.get("/payments/api/deposits/").json()["results"]
    assert [d["id"] for d in listed] == [body["id"]]


def test_api_deposit_validation_error_is_typed(fake_stripe):
    response = api(UserFactory()).post(
        "/payments/api/deposits/", {"amount_minor": 1}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "payments:invalid-amount"
    assert fake_stripe.requests == []


def test_api_summary_history_and_withdrawal(fake_stripe):
    user = UserFactory()
    deposit = Deposit.objects.create(
        user=user, amount_minor=5_000, checkout_session_id="cs_s", status="open"
    )
    from market.payments.services.webhooks import handle_webhook

    payload, header = sign(event("checkout.session.completed", completed_session(deposit)))
    handle_webhook(payload=payload, signature_header=header)
    earn_proceeds(user, 2_500)
    ConnectedAccount.objects.create(user=user, stripe_account_id="acct_api", payouts_enabled=True)
    client = api(user)

    withdrawal = client.post("/payments/api/withdrawals/", {"amount_minor": 2_000}, format="json")
    assert withdrawal.status_code == 201, withdrawal.content
    assert withdrawal.json()["status"] == "requested"
    assert withdrawal.json()["net_minor"] == 2_000 - 25

    summary = client.get("/payments/api/usd/").json()
    assert summary["usd_enabled"] is True
    assert (
        summary["available_minor"],
        summary["held_minor"],
        summary["pending_minor"],
        summary["debt_minor"],
    ) == (5_500, 2_000, 0, 0)
    # The deposit stays refundable; only the proceeds could leave by transfer.
    assert (summary["refundable_minor"], summary["withdrawable_minor"]) == (5_000, 500)
    assert summary["can_withdraw"] is True
    assert summary["connected_account"]["stripe_account_id"] == "acct_api"

    history = client.get("/payments/api/usd/history/").json()["results"]
    assert [(h["kind"], h["account"], h["amount_minor"]) for h in history] == [
        ("withdrawal_hold", "held", 2_000),
        ("withdrawal_hold", "available", -2_000),
        ("proceeds_release", "pending", -2_500),
        ("proceeds_release", "available", 2_500),
        ("trade", "pending", 2_500),
        ("deposit", "available", 5_000),
    ]
    too_much = client.post("/payments/api/withdrawals/", {"amount_minor": 1_000}, format="json")
    assert too_much.status_code == 402
    assert too_much.json()["error"]["code"] == "market:insufficient-funds"
    assert "5,000.00 USD" not in too_much.json()["error"]["message"]
    assert "5.00 USD" in too_much.json()["error"]["message"]


def test_api_connect_onboarding_returns_the_link(fake_stripe):
    user = UserFactory()
    fake_stripe.answer(
        "POST",
        "/v2/core/accounts",
        200,
        fakes.v2_account("acct_o", transfers_status="restricted", due="currently_due"),
    )
    fake_stripe.answer("POST", "/v2/core/account_links", 200, fakes.account_link("acct_o"))
    response = api(user).post("/payments/api/connect/onboarding/", {}, format="json")
    assert response.status_code == 201, response.content
    assert response.json() == {"url": "https://accounts.stripe.com/r/acct_o#alu_test"}
    link = fake_stripe.requests[1].json["use_case"]["account_onboarding"]
    assert link["refresh_url"] == "https://market.test/payments/connect/refresh/"
    assert link["return_url"] == "https://market.test/payments/connect/return/"


def test_api_requires_authentication():
    assert APIClient().get("/payments/api/usd/").status_code in (401, 403)


def test_panel_renders_balances_and_forms(fake_stripe):
    user = UserFactory()
    request = RequestFactory().get("/account/")
    request.user = user
    html = render_to_string("payments/_usd_panel.html", usd_panel_context(request), request=request)
    assert 'id="usd-available">0.00 USD<' in html
    assert 'action="/payments/deposit/"' in html
    assert "Connect with Stripe" in html


def test_deposit_form_redirects_to_checkout(client, fake_stripe):
    user = UserFactory()
    client.force_login(user)
    fake_stripe.answer("POST", "/v1/checkout/sessions", 200, fakes.checkout_session("cs_form"))
    response = client.post("/payments/deposit/", {"amount": "12.50", "form_token": "t1"})
    assert response.status_code == 302
    assert response["Location"] == "https://checkout.stripe.com/c/pay/cs_form"
    assert fake_stripe.requests[0].form["line_items[0][price_data][unit_amount]"] == "1250"
    # The return page never credits.
    page = client.get("/payments/deposit/return/?session_id=cs_form")
    assert page.status_code == 200 and b"Stripe is confirming your payment" in page.content
    assert balance(user, currency="USD") == 0


@pytest.mark.parametrize("form", ["deposit", "withdraw", "refund"])
@pytest.mark.parametrize("token", ["t\x00", "t\nx", "x" * 256])
def test_a_form_token_that_is_no_key_is_refused_with_a_message_not_a_500(
    client, fake_stripe, form, token
):
    """A form's token is its idempotency key: a NUL byte (which PostgreSQL text refuses), a
    control character or 256 characters is refused before anything is looked up or written."""
    from market.payments.models import Deposit, DepositRefund, Withdrawal

    client.force_login(UserFactory())
    response = client.post(
        f"/payments/{form}/",
        {"amount": "12.50", "form_token": token, "deposit_id": "1"},
        follow=True,
    )
    assert response.status_code == 200
    assert b"invalid idempotency key" in response.content
    assert (Deposit.objects.count(), Withdrawal.objects.count()) == (0, 0)
    assert DepositRefund.objects.count() == 0
    assert fake_stripe.requests == []


# --- No Stripe keys: USD disabled everywhere -------------------------------------------------


@pytest.fixture
def no_keys(settings):
    settings.STRIPE_SECRET_KEY = ""
    settings.STRIPE_WEBHOOK_SECRET = ""
    return settings


def test_without_keys_the_api_says_usd_is_disabled(no_keys, fake_stripe):
    client = api(UserFactory())
    for path, body in [
        ("/payments/api/deposits/", {"amount_minor": 2_000}),
        ("/payments/api/withdrawals/", {"amount_minor": 2_000}),
        ("/payments/api/connect/onboarding/", {}),
    ]:
        response = client.post(path, body, format="json")
        assert response.status_code == 403, path
        assert response.json()["error"]["code"] == "payments:usd-disabled"
        assert "disabled" in response.json()["error"]["message"]
    summary = client.get("/payments/api/usd/").json()
    assert summary["usd_enabled"] is False
    assert summary["disabled"]["code"] == "payments:usd-disabled"
    assert fake_stripe.requests == []
    assert Deposit.objects.count() == 0


def test_without_keys_services_webhook_and_panel_refuse(no_keys, client):
    with pytest.raises(UsdDisabled):
        create_deposit_session(
            user=UserFactory(), amount_minor=2_000, success_url="x", cancel_url="y"
        )
    payload, header = sign(event("checkout.session.completed", {"id": "cs"}))
    assert post_webhook(client, payload, header).status_code == 403
    request = RequestFactory().get("/account/")
    request.user = UserFactory()
    html = render_to_string("payments/_usd_panel.html", usd_panel_context(request), request=request)
    assert "USD payments are disabled on this server" in html
    assert "/payments/deposit/" not in html
    user = UserFactory()
    client.force_login(user)
    response = client.post("/payments/deposit/", {"amount": "10"}, follow=False)
    assert response.status_code == 302 and response["Location"] == "/account/"


def test_without_keys_the_demo_market_works(no_keys):
    buyer = UserFactory()
    grant_demo_credits(user=buyer, amount_minor=5_000)
    place_bid(buyer=buyer, problem=ProblemFactory(), price=Money(1_000, Currency.DEMO), quantity=2)
    assert balance(buyer) == 3_000 and balance(buyer, AccountKind.HELD) == 2_000
    assert_payments_invariants()


def test_the_api_is_also_under_api_v1(fake_stripe):
    response = api(UserFactory()).get("/api/v1/payments/usd/")
    assert response.status_code == 200
    assert response.json()["usd_enabled"] is True
