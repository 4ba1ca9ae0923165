"""Statements per order request over HTTP, as deployed (autocommit, with an Idempotency-Key).

Issue 29: a placement took 12 statements (the idempotency record's insert and update each in
their own BEGIN/COMMIT, two queries for fills of an order that filled nothing). The budget is
the token, the key's insert, the access check, the engine's CALL and the stored response: 5;
the engine answers every column of the order, so an order nothing filled is not re-read. A
fill adds the re-read with its fills (2 queries). A cancel is 4: the engine's cancel is its
own access check. The bodies are those of the order's detail read.
"""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from market.models import Order, OrderStatus, Trade

pytestmark = pytest.mark.django_db(transaction=True)


def _post(client, path, body):
    # A token's last use is stamped at most once a minute: stamp it before counting.
    assert client.get("/api/v1/me/").status_code == 200
    with CaptureQueriesContext(connection) as captured:
        response = client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()))
    return response, [query["sql"] for query in captured.captured_queries]


def _detail(client, order_id):
    response = client.get(f"/api/v1/orders/{order_id}/")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_resting_bid_costs_five_statements_and_no_transaction_of_its_own(world):
    body = {"problem": world.problem.pk, "side": "bid", "price_minor": 100, "currency": "DEMO"}

    response, sql = _post(world.clients["buyer"], "/api/v1/orders/", body)

    assert response.status_code == 201, response.content
    assert response.json()["fills"] == []
    assert response.json() == _detail(world.clients["buyer"], response.json()["id"])
    assert len(sql) == 5, "\n".join(s[:100] for s in sql)
    assert not [s for s in sql if s.startswith(("BEGIN", "COMMIT", "SAVEPOINT"))]
    assert Order.objects.get(pk=response.json()["id"]).status == OrderStatus.OPEN


def test_a_bid_that_fills_reads_its_fills_once(world):
    body = {"problem": world.problem.pk, "side": "bid", "price_minor": 950, "currency": "DEMO"}

    # The buyer owns the solution already (the world's first trade): another solver buys.
    response, sql = _post(world.clients["other_solver"], "/api/v1/orders/", body)

    assert response.status_code == 201, response.content
    fills = response.json()["fills"]
    trade = Trade.objects.get(bid_id=response.json()["id"])
    assert [fill["id"] for fill in fills] == [trade.pk]
    assert response.json() == _detail(world.clients["other_solver"], response.json()["id"])
    assert len(sql) == 7, "\n".join(s[:100] for s in sql)


def test_a_cancel_costs_four_statements_and_shows_no_fills_without_reading_them(world):
    body = {"problem": world.problem.pk, "side": "bid", "price_minor": 100, "currency": "DEMO"}
    placed, _ = _post(world.clients["buyer"], "/api/v1/orders/", body)
    order_id = placed.json()["id"]

    response, sql = _post(world.clients["buyer"], f"/api/v1/orders/{order_id}/cancel/", {})

    assert response.status_code == 200, response.content
    assert response.json()["status"] == "cancelled"
    assert response.json()["fills"] == []
    assert response.json() == _detail(world.clients["buyer"], order_id)
    assert len(sql) == 4, "\n".join(s[:100] for s in sql)
    assert not [s for s in sql if "market_trade" in s]


def test_cancelling_another_users_order_is_not_found_and_changes_nothing(world):
    body = {"problem": world.problem.pk, "side": "bid", "price_minor": 100, "currency": "DEMO"}
    placed, _ = _post(world.clients["buyer"], "/api/v1/orders/", body)
    order_id = placed.json()["id"]

    response, _ = _post(world.clients["other_solver"], f"/api/v1/orders/{order_id}/cancel/", {})

    assert response.status_code == 404, response.content
    assert response.json()["error"]["code"] == "not-found"
    assert response.json()["error"]["message"] == "no such order"
    assert Order.objects.get(pk=order_id).status == OrderStatus.OPEN
