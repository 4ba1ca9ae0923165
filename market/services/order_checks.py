"""The matching engine's preconditions: order validation, the comparison of a replayed
client order id and the ask's solution check (both engines), and the problem lock with what
the checks need in one round trip (the Python development engine; the PostgreSQL functions
take it themselves).

The rules and the lock order are stated in :mod:`market.services.orders`; everything here
runs inside the placement's transaction.
"""

from __future__ import annotations

from django.conf import settings
from django.db import connection

from market.exceptions import (
    AskAlreadyOpen,
    BidAlreadyOpen,
    ClientOrderIdReused,
    InvalidOrder,
    NotFound,
    SelfTrade,
    SolutionLimit,
    SolutionNotAccepted,
)
from market.models import Order, OrderSide, Problem, SolutionStatus
from market.money import Money, format_minor

# A buyer holds at most this many solutions of one problem (bought ones: their trades, one per
# solution), counting what an open bid may still buy (migration 0018; docs/market.md, "Matching
# rules"). The engine's SQL has the same constant; the refusal's DETAIL carries it.
SOLUTION_LIMIT = 100


def lock_problem(problem_id: int) -> Problem:
    """Serialise everything that reads or changes ``problem_id``'s book (inside an atomic block).

    FOR NO KEY UPDATE, not FOR UPDATE: it still excludes every other matcher of this problem,
    but does not block rows that merely reference the problem (a solution being submitted,
    a verifier being published take a KEY SHARE lock on it).
    """
    return Problem.objects.select_for_update(no_key=True).get(pk=problem_id)


_PLACEMENT_LOCK_SQL = """
SELECT p.id, p.status, p.currency, p.is_demo, p.title, p.slug,
       (SELECT o.id FROM market_order o
         WHERE o.owner_id = %s AND o.client_order_id = %s LIMIT 1),
       (SELECT s.status FROM market_solution s
         WHERE s.id = %s AND s.solver_id = %s AND s.problem_id = p.id),
       (SELECT o.id FROM market_order o
         WHERE o.solution_id = %s AND o.side = 'ask' AND o.status = 'open'),
       (SELECT o.id FROM market_order o
         WHERE o.owner_id = %s AND o.problem_id = p.id AND o.side = 'bid'
           AND o.status = 'open'),
       (SELECT o.id FROM market_order o
         WHERE o.owner_id = %s AND o.problem_id = p.id AND o.side = 'ask'
           AND o.status = 'open'
         ORDER BY o.price_minor, o.id LIMIT 1),
       (SELECT o.price_minor FROM market_order o
         WHERE o.owner_id = %s AND o.problem_id = p.id AND o.side = 'ask'
           AND o.status = 'open'
         ORDER BY o.price_minor, o.id LIMIT 1),
       (SELECT count(*) FROM (SELECT 1 FROM market_trade t
         WHERE t.buyer_id = %s AND t.problem_id = p.id LIMIT %s) AS held)
FROM market_problem p WHERE p.id = %s
"""


def lock_problem_for_placement(
    problem_id: int, *, owner_id: int, solution_id: int | None, client_order_id: str | None
) -> Problem:
    """:func:`lock_problem`, reading in the same round trip what the checks need.

    ``replayed_order_id``: the owner's order with ``client_order_id``, if any (the unique
    constraint and the problem lock make this read final for this problem).
    ``ask_solution_status``: the status of ``solution_id`` if it is the owner's solution of
    this problem (the ledger trigger re-checks ACCEPTED when the ask is inserted).
    ``open_ask_id``: the open ask on ``solution_id``, if any (one open ask per solution; the
    partial unique index order_one_open_ask_per_solution re-checks it).
    ``open_bid_id``: the owner's open bid on this problem, if any (one open bid per buyer
    and problem, order_one_open_bid_per_buyer; an incoming ask crossing it is a
    self-trade); ``cheapest_own_ask``: the owner's cheapest open ask on this problem
    as ``(id, price_minor)``, if any (an incoming bid crossing it is a self-trade).
    ``held``: how many solutions of this problem the owner bought, counted up to
    SOLUTION_LIMIT + 1 (one bounded probe of trade_holdings_by_buyer).
    Raw SQL: the ORM spent longer building this query than PostgreSQL spent running it.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            _PLACEMENT_LOCK_SQL + " FOR NO KEY UPDATE OF p",
            [
                owner_id,
                client_order_id,
                solution_id,
                owner_id,
                solution_id,
                owner_id,
                owner_id,
                owner_id,
                owner_id,
                SOLUTION_LIMIT + 1,
                problem_id,
            ],
        )
        row = cursor.fetchone()
    if row is None:
        raise Problem.DoesNotExist
    (
        pk,
        status,
        currency,
        is_demo,
        title,
        slug,
        replayed_order_id,
        ask_solution_status,
        open_ask_id,
        open_bid_id,
        own_ask_id,
        own_ask_price,
        held,
    ) = row
    problem = Problem(
        pk=pk, status=status, currency=currency, is_demo=is_demo, title=title, slug=slug
    )
    problem._state.adding = False
    problem.replayed_order_id = replayed_order_id  # type: ignore[attr-defined]
    problem.ask_solution_status = ask_solution_status  # type: ignore[attr-defined]
    problem.open_ask_id = open_ask_id  # type: ignore[attr-defined]
    problem.open_bid_id = open_bid_id  # type: ignore[attr-defined]
    problem.cheapest_own_ask = (  # type: ignore[attr-defined]
        None if own_ask_id is None else (own_ask_id, own_ask_price)
    )
    problem.held = held  # type: ignore[attr-defined]
    return problem


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
