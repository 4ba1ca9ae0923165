"""Round trips per placement: the engine's budget, counted (issue 14).

Every statement the engine sends is captured with Django's own capture. As deployed
(autocommit, no caller transaction) a placement or a cancel is ONE statement,
``CALL engine.place_order_durable(...)`` or ``CALL engine.cancel_order_durable(...)``
(migration 0008: the placement's transaction, then the wait for its WAL flush, in one call):
no BEGIN, no COMMIT, whatever the number of fills. Inside a caller's transaction the engine
function itself is called, wrapped in a SAVEPOINT / RELEASE pair (three statements), so that
a refusal leaves the caller's transaction usable.
A refusal and a retried placement answered with its order are one statement too (migration
0016). Budget (issue 14): at most 6 for a resting bid or a cancel, at most 8 for a bid that
crosses one ask, and no extra statement per extra fill.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from market.exceptions import InsufficientFunds
from market.models import AccountKind, Order, OrderStatus, Trade
from market.money import Currency
from market.services.ledger import get_system_account
from market.services.orders import cancel_order, place_ask, place_bid
from tests.market.conftest import Market, demo, funded
from tests.market.helpers import assert_market_invariants

ENGINE_CALL = ("SELECT * FROM engine.place_order(", "SELECT * FROM engine.cancel_order(")
DEPLOYED_CALL = ("CALL engine.place_order_durable(", "CALL engine.cancel_order_durable(")


def statements(call):
    with CaptureQueriesContext(connection) as captured:
        result = call()
    return result, [q["sql"] for q in captured.captured_queries]


@pytest.fixture
def warm(db):
    """A book where every account involved already exists (the steady state)."""
    market = Market()
    get_system_account(currency=Currency.DEMO, kind=AccountKind.FEES)
    buyer = funded(100_000)
    sellers = [market.accepted(solver=funded(1)) for _ in range(3)]
    for seller in sellers:
        place_ask(seller=seller.solver, solution=seller, price=demo(500), quantity=1)
    warm_bid = place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=1)
    cancel_order(user=buyer, order_id=warm_bid.pk)
    return market, buyer, sellers


@pytest.mark.django_db(transaction=True)
def test_as_deployed_every_placement_and_cancel_is_one_statement_and_one_transaction(warm):
    market, buyer, sellers = warm
    # Autocommit and no transaction open: each statement is its own transaction.
    assert connection.get_autocommit() and not connection.in_atomic_block
    # The resting bid last: one open bid per buyer and problem.
    calls = {
        "take_one_ask": lambda: place_bid(
            buyer=buyer, problem=market.problem, price=demo(600), quantity=1
        ),
        "take_two_asks": lambda: place_bid(
            buyer=buyer, problem=market.problem, price=demo(600), quantity=2
        ),
        "rest_bid": lambda: place_bid(
            buyer=buyer, problem=market.problem, price=demo(200), quantity=1
        ),
    }
    for kind, call in calls.items():
        _, sql = statements(call)
        assert len(sql) == 1 and sql[0].startswith(DEPLOYED_CALL[0]), (kind, sql)
    assert Trade.objects.filter(buyer=buyer).count() == 3  # the fills happened
    resting = Order.objects.get(owner=buyer, status=OrderStatus.OPEN)
    cancelled, sql = statements(lambda: cancel_order(user=buyer, order_id=resting.pk))
    assert cancelled.status == OrderStatus.CANCELLED
    assert len(sql) == 1 and sql[0].startswith(DEPLOYED_CALL[1]), sql

    solution = market.accepted(solver=funded(1))
    place_bid(buyer=buyer, problem=market.problem, price=demo(700), quantity=1)
    ask, sql = statements(
        lambda: place_ask(seller=solution.solver, solution=solution, price=demo(650), quantity=1)
    )
    assert ask.status == OrderStatus.FILLED
    assert len(sql) == 1, sql
    assert_market_invariants()


@pytest.mark.django_db(transaction=True)
def test_a_refusal_is_one_statement_and_leaves_the_connection_usable(warm):
    # The CALL only: the procedure flushes before raising the refusal (it may have been
    # decided on a placement not yet flushed: tests/market/test_durable_ack.py).
    market, _, _ = warm
    poor = funded(10)
    with CaptureQueriesContext(connection) as captured, pytest.raises(InsufficientFunds):
        place_bid(buyer=poor, problem=market.problem, price=demo(200), quantity=1)
    sql = [q["sql"] for q in captured.captured_queries]
    assert len(sql) == 1 and sql[0].startswith(DEPLOYED_CALL[0]), sql
    order, sql = statements(
        lambda: place_bid(buyer=poor, problem=market.problem, price=demo(5), quantity=1)
    )
    assert order.status == OrderStatus.OPEN and len(sql) == 1
    assert_market_invariants()


@pytest.mark.django_db
def test_inside_a_callers_transaction_a_call_is_a_savepoint_around_one_statement(warm):
    market, buyer, _ = warm
    one, sql_one = statements(
        lambda: place_bid(buyer=buyer, problem=market.problem, price=demo(600), quantity=1)
    )
    two, sql_two = statements(
        lambda: place_bid(buyer=buyer, problem=market.problem, price=demo(600), quantity=2)
    )
    rest, sql_rest = statements(
        lambda: place_bid(buyer=buyer, problem=market.problem, price=demo(200), quantity=1)
    )
    cancelled, sql_cancel = statements(lambda: cancel_order(user=buyer, order_id=rest.pk))
    assert (one.status, two.status, rest.status, cancelled.status) == (
        OrderStatus.FILLED,
        OrderStatus.FILLED,
        OrderStatus.OPEN,
        OrderStatus.CANCELLED,
    )
    for sql in (sql_one, sql_two, sql_rest, sql_cancel):
        assert len(sql) == 3, sql
        assert sql[0].startswith("SAVEPOINT") and sql[-1].startswith("RELEASE SAVEPOINT")
        assert sql[1].startswith(ENGINE_CALL)
    assert_market_invariants()
