"""An engine refusal the shared table does not know is a JSON platform error, never a 500."""

from __future__ import annotations

import pytest

from market import engine_refusals
from market.models import Order
from tests.api.conftest import assert_error

pytestmark = pytest.mark.django_db


def test_a_refusal_code_missing_from_the_table_is_answered_as_json_503(world, monkeypatch):
    # The SQL really refuses (the buyer has 10 000 and the bid needs 50 000); the table has
    # lost the code, as a new RAISE in a migration would be before the table learns it.
    monkeypatch.delitem(engine_refusals.REFUSALS, "FM010")  # insufficient-funds
    before = Order.objects.count()
    response = world.client("buyer").post(
        "/api/v1/orders/",
        {
            "problem": world.problem.pk,
            "side": "bid",
            "price_minor": 50_000,
            "currency": "DEMO",
            "quantity": 1,
        },
        format="json",
    )
    assert_error(response, 503, "market:engine-refusal-unknown")
    assert Order.objects.count() == before


def test_the_same_refusal_with_the_table_intact_is_the_users_402(world):
    response = world.client("buyer").post(
        "/api/v1/orders/",
        {
            "problem": world.problem.pk,
            "side": "bid",
            "price_minor": 50_000,
            "currency": "DEMO",
            "quantity": 1,
        },
        format="json",
    )
    assert_error(response, 402, "market:insufficient-funds")
