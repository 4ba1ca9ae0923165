"""Which resting orders an incoming order trades with: price-time priority, legal pairs only.

The engine's plan is the page queries of ``engine.place_order`` (market migrations 0005,
0006); :func:`crossing_orders` is their book probe as an ORM query (the order book pages,
tests/market/test_book_index.py). The reference model of the tests
(tests/market/dev_engine/matching.py) plans fills with the same filters.
The rules (DESIGN.md): best price first, then the oldest; no self-trade; a buyer takes at
most one copy of a solution; orders in another currency never trade (a problem whose
currency changed). Orders that may not trade with the incoming one are passed over and keep
their place. The first three are filters of one index-ordered query, so a normal placement
reads exactly the rows it fills, in one round trip.
"""

from __future__ import annotations

from django.db.models import QuerySet

from market.models import Order, OrderSide, OrderStatus

SCAN_CHUNK = 64


def crossing_orders(*, problem_id: int, side: OrderSide, price_minor: int) -> QuerySet[Order]:
    """Open orders that an incoming ``side`` order at ``price_minor`` crosses, best first.

    Best first is price-time priority: the cheapest ask (or the highest bid), then the oldest.
    The filter and the ordering are exactly those of the partial indexes ``order_book_asks`` and
    ``order_book_bids``, so the best order is an index probe, not a scan of the book
    (tests/market/test_book_index.py checks the plan).
    """
    qs: QuerySet[Order] = Order.objects.filter(problem_id=problem_id, status=OrderStatus.OPEN)
    if side == OrderSide.BID:  # an incoming bid meets asks, cheapest first
        return qs.filter(side=OrderSide.ASK, price_minor__lte=price_minor).order_by(
            "price_minor", "id"
        )
    return qs.filter(side=OrderSide.BID, price_minor__gte=price_minor).order_by(
        "-price_minor", "id"
    )
