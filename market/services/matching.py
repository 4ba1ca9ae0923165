"""Which resting orders an incoming order trades with: price-time priority, legal pairs only.

Called by ``market.services.orders`` with the problem's row locked; reads, never writes.
The rules (DESIGN.md): best price first, then the oldest; no self-trade; a buyer takes at
most one copy of a solution; orders in another currency never trade (a problem whose
currency changed). Orders that may not trade with the incoming one are passed over and keep
their place. The first three are filters of one index-ordered query, so a normal placement
reads exactly the rows it fills, in one round trip.
"""

from __future__ import annotations

import dataclasses

from django.db.models import Exists, OuterRef, Q, QuerySet

from market.models import Entitlement, Order, OrderSide, OrderStatus

SCAN_CHUNK = 64


@dataclasses.dataclass(frozen=True, slots=True)
class Fill:
    resting: Order
    buyer_id: int
    seller_id: int
    solution_id: int
    price_minor: int  # the maker's price


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


def legal_crossing_orders(
    *,
    owner_id: int,
    problem_id: int,
    currency: str,
    side: OrderSide,
    price_minor: int,
    solution_id: int | None,
) -> QuerySet[Order]:
    """:func:`crossing_orders` that ``owner_id`` may trade with, best first (same index).

    Passed over in SQL: orders in another currency (placed before the problem's currency
    changed: never mix currencies), the owner's own (no self-trade), and those whose trade
    would give a buyer a second copy of a solution.
    """
    legal = crossing_orders(problem_id=problem_id, side=side, price_minor=price_minor)
    legal = legal.filter(currency=currency).exclude(owner_id=owner_id)
    if side == OrderSide.BID:
        owned = Entitlement.objects.filter(user_id=owner_id, solution_id=OuterRef("solution_id"))
    else:
        owned = Entitlement.objects.filter(user_id=OuterRef("owner_id"), solution_id=solution_id)
    return legal.exclude(Exists(owned))


def plan_fills(
    *,
    owner_id: int,
    problem_id: int,
    currency: str,
    side: OrderSide,
    price_minor: int,
    quantity: int,
    solution_id: int | None,
) -> list[Fill]:
    """Decide the fills of an incoming order without writing anything (problem row locked)."""
    legal = legal_crossing_orders(
        owner_id=owner_id,
        problem_id=problem_id,
        currency=currency,
        side=side,
        price_minor=price_minor,
        solution_id=solution_id,
    )
    fills: list[Fill] = []
    taken: set[int] = set()  # solutions (incoming bid) or buyers (incoming ask) in this plan
    page_size = min(quantity, SCAN_CHUNK)
    last: tuple[int, int] | None = None
    while len(fills) < quantity:
        page = legal
        if last is not None:
            last_price, last_id = last
            beyond = (
                Q(price_minor__gt=last_price)
                if side == OrderSide.BID
                else Q(price_minor__lt=last_price)
            )
            page = page.filter(beyond | Q(price_minor=last_price, id__gt=last_id))
        chunk = list(page.only(*_FILL_FIELDS)[:page_size])
        for resting in chunk:
            if len(fills) == quantity:
                break
            if side == OrderSide.BID:
                assert resting.solution_id is not None
                if resting.solution_id in taken:
                    continue  # two asks of one solution: the buyer takes one copy
                taken.add(resting.solution_id)
                fills.append(
                    Fill(
                        resting,
                        owner_id,
                        resting.owner_id,
                        resting.solution_id,
                        resting.price_minor,
                    )
                )
            else:
                assert solution_id is not None
                if resting.owner_id in taken:
                    continue  # two bids of one buyer: one copy each
                taken.add(resting.owner_id)
                fills.append(
                    Fill(resting, resting.owner_id, owner_id, solution_id, resting.price_minor)
                )
        if len(chunk) < page_size:
            break
        last = (chunk[-1].price_minor, chunk[-1].pk)
        page_size = SCAN_CHUNK
    return fills


_FILL_FIELDS = (
    "id",
    "owner_id",
    "solution_id",
    "price_minor",
    "side",
    "remaining",
    "status",
    "closed_at",
)
