"""An order's body is built directly (issue 29): it must equal DRF's generic rendering.

`OrderSerializer.to_representation` skips the ModelSerializer's per-instance field building;
these tests hold its output equal to the generic path for orders in every state the API
shows: resting, filled (a bid and the ask it met), partly filled, cancelled, with and without
a client_order_id, read through the selectors as the views read them.
"""

from __future__ import annotations

import pytest
from rest_framework import serializers

from market import selectors
from market.api.serializers.trading import OrderSerializer
from market.models import Order, OrderStatus
from market.money import Money
from market.services.orders import cancel_order, place_bid

pytestmark = pytest.mark.django_db


def _generic(order: Order) -> dict:
    return dict(serializers.ModelSerializer.to_representation(OrderSerializer(), order))


def test_the_direct_body_equals_the_generic_one_for_every_state(world):
    cancelled = cancel_order(
        user=world.other_solver,
        order_id=place_bid(
            buyer=world.other_solver,
            problem=world.problem,
            price=Money(50, "DEMO"),
            quantity=1,
            client_order_id="mine-1",
        ).pk,
    )
    resting = place_bid(
        buyer=world.other_solver, problem=world.problem, price=Money(100, "DEMO"), quantity=1
    )
    orders = [
        selectors.get_user_order(user=order.owner, order_id=order.pk)
        for order in Order.objects.select_related("owner").order_by("pk")
    ]
    states = {(order.status, order.remaining == order.quantity, order.side) for order in orders}

    # The world's bid filled against its ask (5 copies, 1 sold): filled, partly filled,
    # resting and cancelled orders, bids and asks.
    assert (OrderStatus.FILLED, False, "bid") in states
    assert (OrderStatus.OPEN, False, "ask") in states
    assert (OrderStatus.OPEN, True, "bid") in states
    assert (OrderStatus.CANCELLED, True, "bid") in states
    assert {resting.pk, cancelled.pk} <= {order.pk for order in orders}
    for order in orders:
        body = OrderSerializer(order).data
        assert body == _generic(order), order
        assert list(body) == list(_generic(order))  # the same keys in the same order
    assert any(OrderSerializer(order).data["fills"] for order in orders)
    assert OrderSerializer(orders, many=True).data == [_generic(order) for order in orders]
