"""The refund API against a hostile client: someone else's deposit looks missing, absurd
amounts are typed refusals, and concurrent refunds of one deposit never refund more than
it (threads on real PostgreSQL; Stripe at the offline seam)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from market.payments.models import DepositRefund
from tests.factories import UserFactory
from tests.market.helpers import snapshot
from tests.payments.helpers import assert_payments_invariants
from tests.payments.test_user_refunds import paid_deposit, usd
from tests.waiting import scaled


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.django_db
def test_someone_elses_deposit_is_refused_exactly_like_a_missing_one(fake_stripe):
    owner, stranger = UserFactory(), UserFactory()
    deposit = paid_deposit(owner, 5_000)
    before = snapshot()

    theirs = api(stranger).post(f"/payments/api/deposits/{deposit.pk}/refund/", {}, "json")
    missing = api(stranger).post(f"/payments/api/deposits/{deposit.pk + 999}/refund/", {}, "json")

    assert theirs.status_code == missing.status_code == 404
    assert theirs.json() == missing.json()
    assert theirs.json()["error"]["code"] == "not-found"
    assert api(stranger).get("/payments/api/refunds/").json() == {"results": []}
    assert snapshot() == before and DepositRefund.objects.count() == 0
    assert usd(owner) == 5_000


@pytest.mark.django_db
@pytest.mark.parametrize("amount", [10**30, 2**63, 5_001, 0, -1, "1e3", 10.5, 1000.0, True])
def test_absurd_refund_amounts_are_typed_refusals_that_change_nothing(fake_stripe, amount):
    owner = UserFactory()
    deposit = paid_deposit(owner, 5_000)
    before = snapshot()

    response = api(owner).post(
        f"/payments/api/deposits/{deposit.pk}/refund/", {"amount_minor": amount}, "json"
    )

    assert response.status_code in (400, 409), response.content
    assert response.json()["error"]["code"] in ("api:invalid", "payments:not-refundable")
    assert snapshot() == before and DepositRefund.objects.count() == 0
    assert usd(owner) == 5_000


@pytest.mark.django_db(transaction=True)
def test_concurrent_full_refunds_of_one_deposit_refund_it_once(fake_stripe):
    owner = UserFactory()
    deposit = paid_deposit(owner, 5_000)
    client = api(owner)
    start = threading.Barrier(6)
    statuses: list[int] = []

    def send() -> None:
        try:
            start.wait(timeout=scaled(30))
            url = f"/payments/api/deposits/{deposit.pk}/refund/"
            statuses.append(client.post(url, {"amount_minor": 5_000}, "json").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=send, daemon=True) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=scaled(60))

    assert sorted(statuses) == [201] + [409] * 5
    assert DepositRefund.objects.filter(deposit=deposit).count() == 1
    assert usd(owner) == 0
    assert_payments_invariants()
