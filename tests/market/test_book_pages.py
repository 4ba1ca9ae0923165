"""An incoming order reads the book in pages of 64: the fills past a page boundary are the
same as on one page (price-time priority, passed-over orders skipped, never re-read).

The differential test's streams never hold more than 64 orders on a side, so the pages after
the first are tested here: an ask passing over one buyer's 199 bids at two prices, with the
page boundaries falling inside a price's run (the rest of the run, then the lower prices:
migration 0014_engine_bid_page_two_ranges), and a bid passing over 150 asks of its owner's
own solutions (one open ask per solution since migration 0015).
"""

from __future__ import annotations

import pytest

from market.models import Order, OrderStatus, Trade
from tests.market.conftest import demo, funded
from tests.market.helpers import assert_market_invariants

pytestmark = pytest.mark.django_db


def test_an_ask_past_several_pages_of_one_buyers_bids_fills_in_price_time_order(market, engine):
    from market.services.orders import place_ask, place_bid

    hoarder = funded(200_000)
    first = place_bid(buyer=hoarder, problem=market.problem, price=demo(500), quantity=1)
    for _ in range(99):
        place_bid(buyer=hoarder, problem=market.problem, price=demo(500), quantity=1)
    late_at_500 = funded()
    bid_500 = place_bid(buyer=late_at_500, problem=market.problem, price=demo(500), quantity=1)
    for _ in range(100):
        place_bid(buyer=hoarder, problem=market.problem, price=demo(450), quantity=1)
    late_at_450, at_400, at_300 = funded(), funded(), funded()
    bid_450 = place_bid(buyer=late_at_450, problem=market.problem, price=demo(450), quantity=1)
    bid_400 = place_bid(buyer=at_400, problem=market.problem, price=demo(400), quantity=1)
    place_bid(buyer=at_300, problem=market.problem, price=demo(300), quantity=1)
    solution = market.accepted()

    ask = place_ask(seller=solution.solver, solution=solution, price=demo(100), quantity=4)

    assert ask.status == OrderStatus.FILLED
    trades = list(Trade.objects.order_by("id").values_list("bid_id", "price_minor"))
    assert trades == [(first.pk, 500), (bid_500.pk, 500), (bid_450.pk, 450), (bid_400.pk, 400)]
    assert Order.objects.filter(owner=hoarder, status=OrderStatus.OPEN).count() == 199
    assert_market_invariants()


def test_a_bid_past_several_pages_of_its_owners_asks_fills_in_price_time_order(market, engine):
    """One open ask per solution (migration 0015): the asks a bid passes over are those of
    distinct solutions, here 150 of the bidder's own, with legal asks before, inside the run
    at the same price (past two page boundaries) and behind it."""
    from market.services.orders import place_ask, place_bid

    me = funded(100_000)
    early = market.accepted()
    first = place_ask(seller=early.solver, solution=early, price=demo(100), quantity=1)
    for _ in range(150):
        place_ask(seller=me, solution=market.accepted(solver=me), price=demo(100), quantity=1)
    late = market.accepted()
    inside = place_ask(seller=late.solver, solution=late, price=demo(100), quantity=1)
    other = market.accepted()
    behind = place_ask(seller=other.solver, solution=other, price=demo(200), quantity=1)

    bid = place_bid(buyer=me, problem=market.problem, price=demo(300), quantity=3)

    assert bid.status == OrderStatus.FILLED
    trades = list(Trade.objects.order_by("id").values_list("ask_id", "price_minor"))
    assert trades == [(first.pk, 100), (inside.pk, 100), (behind.pk, 200)]
    assert Order.objects.filter(owner=me, side="ask", status=OrderStatus.OPEN).count() == 150
    assert_market_invariants()
