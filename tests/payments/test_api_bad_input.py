"""Hostile input on the payments API (/payments/api/): a 4xx or a plain answer in the JSON
envelope, never a 500, and money in messages formatted for people."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from rest_framework.test import APIClient

from market.payments.models import Deposit, Withdrawal
from market.views.errors import page_not_found, server_error
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.parametrize("param", ["before", "limit"])
@pytest.mark.parametrize("value", ["²", "٣", "9" * 25, "-1", "1e3", ""])
def test_usd_history_ignores_non_ascii_digits_and_overflowing_numbers(param, value):
    # Before: "²".isdigit() is true and int("²") raised: a 500 (an HTML page).
    response = api(UserFactory()).get("/payments/api/usd/history/", {param: value})
    assert response.status_code == 200, response.content
    assert response.json() == {"results": [], "next_before": None}


def test_a_crash_under_the_payments_api_is_a_json_500_and_a_miss_a_json_404():
    factory = RequestFactory()
    crashed = server_error(factory.get("/payments/api/usd/history/"))
    assert crashed.status_code == 500
    assert crashed["Content-Type"] == "application/json"
    assert crashed.content == (
        b'{"error": {"code": "api:server-error", '
        b'"message": "internal error; it has been logged", "fields": {}}}'
    )
    missing = page_not_found(factory.get("/payments/api/nothing-here/"), Exception())
    assert missing.status_code == 404
    assert missing["Content-Type"] == "application/json"
    # A page under /payments/ stays a product page.
    assert page_not_found(factory.get("/payments/nothing/"), Exception())[
        "Content-Type"
    ].startswith("text/html")


def test_deposit_amount_refusal_names_dollars_not_raw_cents(settings, fake_stripe):
    settings.DEPOSIT_MIN_MINOR, settings.DEPOSIT_MAX_MINOR = 500, 100_000
    response = api(UserFactory()).post(
        "/payments/api/deposits/", {"amount_minor": 100_001}, format="json"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "payments:invalid-amount"
    assert error["message"] == "a deposit is between 5.00 USD and 1,000.00 USD"
    assert Deposit.objects.count() == 0
    assert fake_stripe.requests == []


def test_withdrawal_minimum_refusal_names_dollars_not_raw_cents(settings, fake_stripe):
    settings.PAYOUT_MIN_MINOR, settings.PAYOUT_FEE_FIXED_MINOR = 1_000, 25
    response = api(UserFactory()).post(
        "/payments/api/withdrawals/", {"amount_minor": 999}, format="json"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "payments:invalid-amount"
    assert error["message"] == "the smallest withdrawal is 10.00 USD"
    assert Withdrawal.objects.count() == 0
    assert fake_stripe.requests == []


@pytest.mark.parametrize(
    ("path", "amount"),
    [
        ("/payments/api/deposits/", 1000.0),
        ("/payments/api/deposits/", "1e3"),
        ("/payments/api/deposits/", " 1000 "),
        ("/payments/api/withdrawals/", 2000.0),
        ("/payments/api/deposits/", 2**63),
    ],
)
def test_payment_amounts_refuse_floats_like_order_prices(fake_stripe, path, amount):
    # Before: DRF's IntegerField took 1000.0 (a JSON float) as 1000 here, while orders
    # refused it: money is an integer count of minor units everywhere.
    response = api(UserFactory()).post(path, {"amount_minor": amount}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], list(error["fields"])) == ("api:invalid", ["amount_minor"])
    assert (Deposit.objects.count(), Withdrawal.objects.count()) == (0, 0)
    assert fake_stripe.requests == []
