"""An incoming order reads the book in pages of 64: the fills past a page boundary are the
same as on one page (price-time priority, passed-over orders skipped, never re-read).

The differential test's streams never hold more than 64 orders on a side, so the pages after
the first are tested here. Since migration 0017 (self-trade prevention, one open bid per
buyer and problem) the orders an incoming order passes over are those of solutions already
owned, at most 99 since the solution limit (0019, bids) and the sales limit (0021, asks): an
ask filling 71 bids over two pages, the page boundary inside a price's run (the rest of the
run, then the lower prices: migration 0014_engine_bid_page_two_ranges), past 29 bids of
buyers who own its solution; and a bid passing over 97 asks of solutions its buyer owns.
"""

from __future__ import annotations

import pytest

from market.models import Order, OrderStatus, Trade
from tests.market.conftest import demo, funded
from tests.market.helpers import assert_market_invariants

pytestmark = pytest.mark.django_db


def test_an_ask_past_several_pages_fills_in_price_time_order_past_its_owners_bids(market, engine):
    """An ask for 71 copies of a solution 29 buyers own (29 + 71 is the sales limit of 100)
    fills 71 bids over two pages of 64: the second page starts inside the run at 450 (the
    rest of the run, then the lower prices), and the owners' 29 bids, interleaved with the
    others at 500 and 450, are passed over on both pages."""
    from market.services.orders import place_ask, place_bid

    solution = market.accepted()
    seller = solution.solver
    owners = [funded() for _ in range(29)]
    place_ask(seller=seller, solution=solution, price=demo(100), quantity=29)
    for owner in owners:
        bought = place_bid(buyer=owner, problem=market.problem, price=demo(100), quantity=1)
        assert bought.status == OrderStatus.FILLED
    # Each owner bids again (for another solution), between the others' bids: 17 at 500
    # (after every third), 12 at 450 (after two of every three, on both sides of the page
    # boundary, which falls after the 14th other bid at 450).
    waiting = list(owners)
    tradable: list[Order] = []
    for price, count, owner_after in ((500, 50, {0}), (450, 18, {0, 1}), (400, 10, set())):
        for k in range(count):
            bid = place_bid(buyer=funded(), problem=market.problem, price=demo(price), quantity=1)
            tradable.append(bid)
            if k % 3 in owner_after:
                owner = waiting.pop()
                place_bid(buyer=owner, problem=market.problem, price=demo(price), quantity=1)
    assert waiting == []
    before = Trade.objects.count()

    ask = place_ask(seller=seller, solution=solution, price=demo(100), quantity=71)

    assert ask.status == OrderStatus.FILLED
    trades = list(Trade.objects.order_by("id").values_list("bid_id", "price_minor"))[before:]
    assert trades == [(bid.pk, bid.price_minor) for bid in tradable[:71]]
    still_open = Order.objects.filter(side="bid", status=OrderStatus.OPEN)
    assert still_open.filter(owner__in=owners).count() == 29
    assert still_open.count() == 29 + 7
    assert Trade.objects.filter(solution=solution).count() == 100
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
