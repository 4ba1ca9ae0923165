"""The reference model's fill planning (moved from market/services/matching.py): which resting
orders an incoming order trades with, price-time priority, legal pairs only, with the
problem's row locked; reads, never writes."""

from __future__ import annotations

import dataclasses
import functools

from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet

from market.models import Entitlement, Order, OrderSide
from market.services.matching import SCAN_CHUNK, crossing_orders


@dataclasses.dataclass(frozen=True, slots=True)
class Fill:
    resting: Order
    buyer_id: int
    seller_id: int
    solution_id: int
    price_minor: int  # the maker's price


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
    fills: list[Fill] = []
    taken: set[int] = set()  # solutions (incoming bid) or buyers (incoming ask) in this plan
    page_size = min(quantity, SCAN_CHUNK)
    last: tuple[int, int] | None = None
    values = {
        "owner_id": owner_id,
        "problem_id": problem_id,
        "currency": currency,
        "price_minor": price_minor,
        "solution_id": solution_id,
    }
    while len(fills) < quantity:
        if last is not None:
            values["last_price"], values["last_id"] = last
        sql, slots = _plan_statement(str(side), page_size, last is not None, connection.alias)
        with connection.cursor() as cursor:
            cursor.execute(
                sql, [values[slot] if isinstance(slot, str) else slot[0] for slot in slots]
            )
            chunk = [_resting_order(row) for row in cursor.fetchall()]
        for resting in chunk:
            if len(fills) == quantity:
                break
            if side == OrderSide.BID:
                assert resting.solution_id is not None
                if resting.solution_id in taken:
                    continue  # two asks of one solution: the buyer takes one copy
                taken.add(resting.solution_id)
                seller_id, price = resting.owner_id, resting.price_minor
                fills.append(Fill(resting, owner_id, seller_id, resting.solution_id, price))
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


# Sentinels stand for the values of one placement while its query is compiled once per shape:
# building and compiling the queryset cost more Python time than the database took to run it.
_SENTINELS = {
    "owner_id": -7_000_001,
    "problem_id": -7_000_002,
    "price_minor": -7_000_003,
    "solution_id": -7_000_004,
    "last_price": -7_000_005,
    "last_id": -7_000_006,
    "currency": "\x01currency",
}


@functools.lru_cache(maxsize=512)
def _plan_statement(
    side: str, page_size: int, continued: bool, alias: str
) -> tuple[str, tuple[str | tuple[object], ...]]:
    """The SQL of one page of :func:`legal_crossing_orders` and where each value goes.

    Each slot is the name of a placement's value, or a 1-tuple holding a constant the ORM
    bound itself (a status, a side).
    """
    s = _SENTINELS
    page = legal_crossing_orders(
        owner_id=s["owner_id"],  # type: ignore[arg-type]
        problem_id=s["problem_id"],  # type: ignore[arg-type]
        currency=s["currency"],  # type: ignore[arg-type]
        side=OrderSide(side),
        price_minor=s["price_minor"],  # type: ignore[arg-type]
        solution_id=s["solution_id"] if side == OrderSide.ASK else None,  # type: ignore[arg-type]
    )
    if continued:  # keyset paging: strictly after the last row of the previous page
        last_price, last_id = s["last_price"], s["last_id"]
        beyond = (
            Q(price_minor__gt=last_price)
            if side == OrderSide.BID
            else Q(price_minor__lt=last_price)
        )
        page = page.filter(beyond | Q(price_minor=last_price, id__gt=last_id))
    query = page.values_list(*_FILL_FIELDS)[:page_size].query
    sql, params = query.get_compiler(using=alias).as_sql()
    by_value = {value: name for name, value in s.items()}
    slots = tuple(by_value.get(p, (p,)) if not isinstance(p, bool) else (p,) for p in params)
    return sql, slots  # type: ignore[return-value]


def _resting_order(row: tuple[object, ...]) -> Order:
    order = Order(**dict(zip(_FILL_FIELDS, row, strict=True)))
    order._state.adding = False
    order._state.db = connection.alias
    return order


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
