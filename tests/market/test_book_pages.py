"""An incoming order reads the book in pages of 64: the fills past a page boundary are the
same as on one page (price-time priority, passed-over orders skipped, never re-read).

The differential test's streams never hold more than 64 orders on a side, so the pages after
the first are tested here: an ask passing over one buyer's 199 bids at two prices, with the
page boundaries falling inside a price's run (the rest of the run, then the lower prices:
migration 0014_engine_bid_page_two_ranges), and a bid passing over one seller's copies.
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


def test_a_bid_past_several_pages_of_one_sellers_copies_takes_the_next_solution(market, engine):
    from market.services.orders import place_ask, place_bid

    copies = market.accepted()
    first = place_ask(seller=copies.solver, solution=copies, price=demo(100), quantity=1)
    for _ in range(150):
        place_ask(seller=copies.solver, solution=copies, price=demo(100), quantity=1)
    other = market.accepted()
    behind = place_ask(seller=other.solver, solution=other, price=demo(200), quantity=1)
    buyer = funded()

    bid = place_bid(buyer=buyer, problem=market.problem, price=demo(300), quantity=2)

    assert bid.status == OrderStatus.FILLED
    trades = list(Trade.objects.order_by("id").values_list("ask_id", "price_minor"))
    assert trades == [(first.pk, 100), (behind.pk, 200)]
    assert_market_invariants()
