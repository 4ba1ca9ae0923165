"""An incoming order reads the book in pages of 64: the fills past a page boundary are the
same as on one page (price-time priority, passed-over orders skipped, never re-read).

The differential test's streams never hold more than 64 orders on a side, so the pages after
the first are tested here. Since migration 0017 (self-trade prevention, one open bid per
buyer and problem) the orders an incoming order passes over are those of solutions already
owned: an ask passing over 199 bids of buyers who own its solution, at two prices, with the
page boundaries falling inside a price's run (the rest of the run, then the lower prices:
migration 0014_engine_bid_page_two_ranges), and a bid passing over 97 asks of solutions
its buyer owns (the solution limit of migration 0019 lets a bid pass over at most 99).
"""

from __future__ import annotations

import pytest

from market.models import Order, OrderStatus, Trade
from tests.market.conftest import demo, funded
from tests.market.helpers import assert_market_invariants

pytestmark = pytest.mark.django_db


def test_an_ask_past_several_pages_of_owners_bids_fills_in_price_time_order(market, engine):
    from market.services.orders import place_ask, place_bid

    solution = market.accepted()
    seller = solution.solver
    # 199 buyers who each bought a copy (at 100) and still bid for one more solution: 99 at
    # 500, then 100 at 450. The ask that sold them the copies is filled.
    place_ask(seller=seller, solution=solution, price=demo(100), quantity=199)
    for price in [500] * 99 + [450] * 100:
        bid = place_bid(buyer=funded(), problem=market.problem, price=demo(price), quantity=2)
        assert (bid.status, bid.remaining) == (OrderStatus.OPEN, 1)
    at_500, at_450, at_400, at_300 = funded(), funded(), funded(), funded()
    bid_500 = place_bid(buyer=at_500, problem=market.problem, price=demo(500), quantity=1)
    bid_450 = place_bid(buyer=at_450, problem=market.problem, price=demo(450), quantity=1)
    bid_400 = place_bid(buyer=at_400, problem=market.problem, price=demo(400), quantity=1)
    bid_300 = place_bid(buyer=at_300, problem=market.problem, price=demo(300), quantity=1)
    before = Trade.objects.count()

    ask = place_ask(seller=seller, solution=solution, price=demo(100), quantity=4)

    assert ask.status == OrderStatus.FILLED
    trades = list(Trade.objects.order_by("id").values_list("bid_id", "price_minor"))[before:]
    assert trades == [(bid_500.pk, 500), (bid_450.pk, 450), (bid_400.pk, 400), (bid_300.pk, 300)]
    assert Order.objects.filter(side="bid", status=OrderStatus.OPEN).count() == 199
    assert_market_invariants()


def test_a_bid_past_several_pages_of_owned_solutions_fills_in_price_time_order(market, engine):
    """The asks a bid passes over are 97 of solutions its buyer owns (bought one copy each
    from their open asks of two; 97 + the bid's 3 is the solution limit of 100), more than a
    page of 64, with legal asks before the run, inside it at the same price (after the run)
    and behind it."""
    from market.services.orders import place_ask, place_bid

    seller = funded()
    for _ in range(97):
        solution = market.accepted(solver=seller)
        place_ask(seller=seller, solution=solution, price=demo(100), quantity=2)
    me = funded(100_000)
    bought = place_bid(buyer=me, problem=market.problem, price=demo(100), quantity=97)
    assert bought.status == OrderStatus.FILLED
    early = market.accepted()
    first = place_ask(seller=early.solver, solution=early, price=demo(90), quantity=1)
    late = market.accepted()
    inside = place_ask(seller=late.solver, solution=late, price=demo(100), quantity=1)
    other = market.accepted()
    behind = place_ask(seller=other.solver, solution=other, price=demo(200), quantity=1)
    before = Trade.objects.count()

    bid = place_bid(buyer=me, problem=market.problem, price=demo(300), quantity=3)

    assert bid.status == OrderStatus.FILLED
    trades = list(Trade.objects.order_by("id").values_list("ask_id", "price_minor"))[before:]
    assert trades == [(first.pk, 90), (inside.pk, 100), (behind.pk, 200)]
    assert Order.objects.filter(owner=seller, side="ask", status=OrderStatus.OPEN).count() == 97
    assert_market_invariants()
