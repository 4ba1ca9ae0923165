"""Round trips per placement: the engine's budget, counted (issue 14).

Every statement the engine sends is captured. Inside the test's transaction the service's own
``transaction.atomic`` is a SAVEPOINT / RELEASE pair, which stands in for BEGIN / COMMIT of a
real request, so the counts below are the round trips of a placement as deployed. Budget: at
most 6 for a resting bid or a cancel, at most 8 for a bid that crosses one ask, and no extra
statement per extra fill. A placement with fills adds the activity feed's one multi-row
INSERT of its trade events (activity.services.events.record_placement_events): 7.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from market.models import AccountKind, OrderStatus
from market.money import Currency
from market.services.ledger import get_system_account
from market.services.orders import cancel_order, place_ask, place_bid
from tests.market.conftest import demo, funded
from tests.market.helpers import assert_market_invariants

pytestmark = pytest.mark.django_db


def statements(call):
    with CaptureQueriesContext(connection) as captured:
        result = call()
    return result, [q["sql"] for q in captured.captured_queries]


@pytest.fixture
def warm(market):
    """A book where every account involved already exists (the steady state)."""
    get_system_account(currency=Currency.DEMO, kind=AccountKind.FEES)
    buyer = funded(100_000)
    sellers = [market.accepted(solver=funded(1)) for _ in range(3)]
    for seller in sellers:
        place_ask(seller=seller.solver, solution=seller, price=demo(500), quantity=1)
    warm_bid = place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=1)
    cancel_order(user=buyer, order_id=warm_bid.pk)
    return market, buyer, sellers


def test_a_resting_bid_takes_six_round_trips(warm):
    market, buyer, _ = warm
    order, sql = statements(
        lambda: place_bid(buyer=buyer, problem=market.problem, price=demo(200), quantity=1)
    )
    assert order.status == OrderStatus.OPEN
    assert len(sql) == 6, sql
    assert sql[0].startswith("SAVEPOINT") and sql[-1].startswith("RELEASE SAVEPOINT")
    assert_market_invariants()


def test_a_cancel_takes_six_round_trips(warm):
    market, buyer, _ = warm
    order = place_bid(buyer=buyer, problem=market.problem, price=demo(200), quantity=1)
    cancelled, sql = statements(lambda: cancel_order(user=buyer, order_id=order.pk))
    assert cancelled.status == OrderStatus.CANCELLED
    assert len(sql) == 6, sql
    assert_market_invariants()


def test_a_bid_taking_one_ask_takes_seven_round_trips_and_more_fills_cost_nothing(warm):
    market, buyer, _ = warm
    one, sql_one = statements(
        lambda: place_bid(buyer=buyer, problem=market.problem, price=demo(600), quantity=1)
    )
    assert one.status == OrderStatus.FILLED
    two, sql_two = statements(
        lambda: place_bid(buyer=buyer, problem=market.problem, price=demo(600), quantity=2)
    )
    assert two.status == OrderStatus.FILLED
    assert len(sql_one) == 7, sql_one
    assert sum('INSERT INTO "activity_event"' in q for q in sql_one) == 1
    assert len(sql_two) == len(sql_one), sql_two
    assert_market_invariants()


def test_an_ask_selling_into_a_bid_takes_seven_round_trips(market):
    get_system_account(currency=Currency.DEMO, kind=AccountKind.FEES)
    buyer = funded(100_000)
    place_bid(buyer=buyer, problem=market.problem, price=demo(700), quantity=1)
    solution = market.accepted(solver=funded(1))  # the seller's account exists
    ask, sql = statements(
        lambda: place_ask(seller=solution.solver, solution=solution, price=demo(650), quantity=1)
    )
    assert ask.status == OrderStatus.FILLED
    assert len(sql) == 7, sql
    assert_market_invariants()
