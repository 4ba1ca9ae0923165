"""The matching engine's preconditions: order validation, the comparison of a replayed
client order id, the ask's solution check and the refusals both engines word alike (the
PostgreSQL functions take the problem lock themselves; the tests' reference model takes it in
tests/market/dev_engine/problem_lock.py).

The rules and the lock order are stated in :mod:`market.services.orders`; everything here
runs inside the placement's transaction.
"""

from __future__ import annotations

from django.conf import settings

from market.exceptions import (
    AskAlreadyOpen,
    BidAlreadyOpen,
    ClientOrderIdReused,
    InvalidOrder,
    NotFound,
    SalesLimit,
    SelfTrade,
    SolutionLimit,
    SolutionNotAccepted,
)
from market.models import Order, OrderSide, SolutionStatus
from market.money import Money, format_minor

# A buyer holds at most this many solutions of one problem (bought ones: their trades, one per
# solution), counting what an open bid may still buy (migration 0019; docs/market.md, "Matching
# rules"). The engine's SQL has the same constant; the refusal's DETAIL carries it.
SOLUTION_LIMIT = 100
# A solution is sold at most this many times (its trades, one per buyer), counting what its
# open ask may still sell (migration 0021; docs/market.md, "Matching rules"). The engine's SQL
# has the same constant; the refusal's DETAIL carries it.
SALES_LIMIT = 100


def validate_order(*, price: Money, quantity: int) -> None:
    fields: dict[str, list[str]] = {}
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
        fields["quantity"] = ["must be a positive integer"]
    elif quantity > settings.MARKET_MAX_ORDER_QUANTITY:
        fields["quantity"] = [f"must be at most {settings.MARKET_MAX_ORDER_QUANTITY}"]
    if price.minor < 1:
        fields["price_minor"] = ["must be a positive integer"]
    elif price.minor > settings.MARKET_MAX_PRICE_MINOR:
        # In the price's own units: no person (or agent) should have to read minor units.
        top = format_minor(settings.MARKET_MAX_PRICE_MINOR, price.currency)
        fields["price_minor"] = [f"at most {top} per copy"]
    if fields:
        raise InvalidOrder("invalid order", fields=fields)


def replay_order(
    existing: Order,
    problem_id: int,
    side: OrderSide,
    price: Money,
    quantity: int,
    solution_id: int | None,
) -> Order:
    same = (
        existing.problem_id == problem_id
        and existing.side == side
        and existing.price_minor == price.minor
        and existing.currency == price.currency
        and existing.quantity == quantity
        and existing.solution_id == solution_id
    )
    if not same:
        raise client_order_id_reused()
    return existing


def client_order_id_reused() -> ClientOrderIdReused:
    """The refusal of a client order id already used for another order (both engines)."""
    return ClientOrderIdReused(
        "this client order id was already used for a different order",
        fields={"client_order_id": ["already used"]},
    )


def check_ask_solution(status: str | None) -> None:
    """``status`` is that of the seller's own solution of this problem, None if there is none."""
    if status is None:
        raise NotFound("no such solution of yours for this problem")
    if status != SolutionStatus.ACCEPTED:
        raise SolutionNotAccepted(
            f"only an ACCEPTED solution can be offered for sale; this one is {status}"
        )


def ask_already_open(open_ask_id: int) -> AskAlreadyOpen:
    """The refusal of a second open ask on one solution (both engines say it this way)."""
    return AskAlreadyOpen(
        f"You already have an open ask on this solution (order {open_ask_id}), and one ask "
        "sells any number of copies. To change its price or quantity, cancel that ask and "
        "place a new one.",
        fields={"solution": [f"already has your open ask {open_ask_id}"]},
    )


def bid_already_open(open_bid_id: int) -> BidAlreadyOpen:
    """The refusal of a second open bid of one buyer on one problem (both engines)."""
    return BidAlreadyOpen(
        f"You already have an open bid on this problem (order {open_bid_id}), and one bid "
        "buys up to its quantity of distinct solutions. To change its price or quantity, "
        "cancel that bid (its hold is released) and place a new one.",
        fields={"problem": [f"already has your open bid {open_bid_id}"]},
    )


def self_trade(resting_order_id: int) -> SelfTrade:
    """The refusal of an order that would cross its owner's own open order (both engines)."""
    return SelfTrade(
        f"This order would trade with your own open order {resting_order_id} on this problem. "
        f"Cancel order {resting_order_id} first, or choose a price that does not cross it.",
        fields={"price_minor": [f"crosses your own open order {resting_order_id}"]},
    )


def solution_limit(held: int, limit: int, max_quantity: int) -> SolutionLimit:
    """The refusal of a bid that would take its buyer past ``limit`` solutions of one
    problem, holding ``held`` (counted up to ``limit + 1``) (both engines)."""
    if max_quantity > 0 and held == 0:
        return SolutionLimit(
            f"A bid may buy at most {limit} solutions of one problem (limit {limit} per buyer "
            "and problem).",
            fields={"quantity": [f"must be at most {max_quantity}"]},
        )
    if max_quantity > 0:
        return SolutionLimit(
            f"You hold {held} solution{'' if held == 1 else 's'} of this problem; a bid may "
            f"buy at most {max_quantity} more (limit {limit} per buyer and problem).",
            fields={"quantity": [f"must be at most {max_quantity}"]},
        )
    holding = f"{held}" if held <= limit else f"more than {limit}"
    return SolutionLimit(
        f"You hold {holding} solutions of this problem, and a buyer may hold at most "
        f"{limit} solutions of one problem: a bid on it cannot buy any more.",
        fields={"problem": [f"you hold the limit of {limit} solutions of this problem"]},
    )


def sales_limit(sold: int, limit: int, max_quantity: int) -> SalesLimit:
    """The refusal of an ask that would take its solution past ``limit`` copies sold, with
    ``sold`` already sold (counted up to ``limit + 1``) (both engines)."""
    times = f"{sold} time{'' if sold == 1 else 's'}"
    if max_quantity > 0 and sold == 0:
        return SalesLimit(
            f"An ask may sell at most {limit} copies of a solution (limit {limit} per solution).",
            fields={"quantity": [f"must be at most {max_quantity}"]},
        )
    if max_quantity > 0:
        return SalesLimit(
            f"This solution has been sold {times}; an ask may sell at most {max_quantity} "
            f"more cop{'y' if max_quantity == 1 else 'ies'} (limit {limit} per solution).",
            fields={"quantity": [f"must be at most {max_quantity}"]},
        )
    selling = times if sold <= limit else f"more than {limit} times"
    return SalesLimit(
        f"This solution has been sold {selling}, and a solution may be sold at most {limit} "
        "times: it cannot be listed again. Another accepted solution of yours can be.",
        fields={"solution": [f"has reached the limit of {limit} sales"]},
    )
