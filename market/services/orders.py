"""The matching engine: place bids and asks, cancel, match by price-time priority.

Rules (DESIGN.md, "Market and money"):
- a trade happens at the resting (maker) order's price; a taker bid keeps the improvement;
- a bid buys one copy each of up to ``quantity`` distinct solutions; an ask sells
  ``quantity`` copies of one ACCEPTED solution of its owner, and a solution has at most one
  open ask (a second is refused: ``market:ask-already-open``); a buyer has at most one open
  bid per problem (``market:bid-already-open``); a buyer holds at most 100 solutions of a
  problem, a solution is sold at most 100 times, each counting what the open order may still
  fill (``market:solution-limit``, ``market:sales-limit``);
- no one trades with themselves: an order that would cross its owner's own open order on the
  problem is refused (``market:self-trade``, one index probe before the walk); no buyer buys
  the same solution twice: such resting orders are passed over (they keep their place), so
  the book is never crossed between orders that could legally trade; orders in another
  currency never trade;
- a bid needs price x quantity of its owner's available funds (USD debt is repaid first);
  what it buys at once is paid from available at the maker's price, what rests is held
  (price x remaining); a resting bid pays its fills from its hold; cancelling releases
  exactly what is still held;
- one problem's matching is serialised by a row lock on the problem; user accounts are
  then locked in ascending id order, all at once, after the fills are planned, so that
  different problems match in parallel and never deadlock.

Where the rules live. On PostgreSQL (every deployment and the test suite) the engine is two
database functions, ``engine.place_order`` and ``engine.cancel_order``, whose current text
is ``market/sql/engine/place_order.sql`` and ``market/sql/engine/cancel_order.sql`` (one
file per routine of the schema ``engine``, held equal to the migrated database by
tests/market/test_engine_sql.py; the migrations 0005-0021 made them): each placement or
cancel is ONE statement, one round trip, and the problem's lock is held only while the
database works (issue 14; docs/market.md, "The engine"). As deployed the statement is the
CALL of a procedure (``market/sql/engine/place_order_durable.sql``, migration 0008) that
commits the placement without holding the book through the WAL flush and answers once the
flush is done (``0009`` and ``0010`` set only how the statements are planned: index probes
whatever the statistics).
This module validates the input,
passes the settings' policy (fee rate, whether USD trades, the proceeds hold window, the
currency with debt), turns the function's refusals into domain errors, and schedules the
practice bot's re-bid. The tests keep the same rules in Python as a reference model
(tests/market/dev_engine); the differential test (tests/market/test_differential.py) holds
both to one naive matcher.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction

from market.exceptions import InvalidOrder
from market.models import Order, OrderSide, OrderStatus, Problem, Solution
from market.money import Currency, Money
from market.payments.services.proceeds import proceeds_account_kind, proceeds_hold_window
from market.payments.stripe_client import usd_enabled
from market.services.engine_calls import Replay, call_engine
from market.services.matching import SCAN_CHUNK, crossing_orders
from market.services.order_checks import replay_order, validate_order

# Re-exported: tests/market/test_book_index.py explains the engine's own query.
_SCAN_CHUNK = SCAN_CHUNK
__all__ = [
    "DEBT_CURRENCY",
    "cancel_order",
    "crossing_orders",
    "fee_for",
    "place_ask",
    "place_bid",
]

# Only USD has debt (refunds and disputes of real payments): a USD bid repays it first.
DEBT_CURRENCY = Currency.USD


def fee_for(price_minor: int) -> int:
    """The platform's fee on a trade at ``price_minor``, rounded down.

    The engine computes the same ``price * MARKET_FEE_BPS // 10 000`` with the rate it is
    passed (tests/market/test_orders.py checks fees against this function).
    """
    return price_minor * settings.MARKET_FEE_BPS // 10_000


def place_bid(
    *,
    buyer: AbstractBaseUser,
    problem: Problem,
    price: Money,
    quantity: int,
    client_order_id: str | None = None,
) -> Order:
    """Match against asks (paid at their prices), rest the remainder and hold price × it."""
    return _place(
        owner_id=buyer.pk,
        problem_id=problem.pk,
        side=OrderSide.BID,
        price=price,
        quantity=quantity,
        solution_id=None,
        client_order_id=client_order_id,
    )


def place_ask(
    *,
    seller: AbstractBaseUser,
    solution: Solution,
    price: Money,
    quantity: int,
    client_order_id: str | None = None,
) -> Order:
    """Offer ``quantity`` copies of the seller's own ACCEPTED solution, matching bids first."""
    return _place(
        owner_id=seller.pk,
        problem_id=solution.problem_id,
        side=OrderSide.ASK,
        price=price,
        quantity=quantity,
        solution_id=solution.pk,
        client_order_id=client_order_id,
    )


def cancel_order(*, user: AbstractBaseUser, order_id: int) -> Order:
    """Cancel the user's open order and release exactly the remaining hold."""
    return _cancel(user_id=user.pk, order_id=order_id)


def _cancel(*, user_id: int, order_id: int) -> Order:
    row = call_engine("engine.cancel_order", [user_id, order_id, str(DEBT_CURRENCY)], price=None)
    if isinstance(row, Replay):  # the cancel committed, then the call failed
        return Order.objects.get(pk=row.order_id)
    (problem_id, side, price_minor, currency, quantity, remaining, solution_id, client_id) = row[:8]
    return _saved(
        Order(
            pk=order_id,
            problem_id=problem_id,
            owner_id=user_id,
            side=side,
            price_minor=price_minor,
            currency=currency,
            quantity=quantity,
            remaining=remaining,
            status=OrderStatus.CANCELLED,
            solution_id=solution_id,
            client_order_id=client_id,
            created_at=row[8],
            closed_at=row[9],
        )
    )


def _place(
    *,
    owner_id: int,
    problem_id: int,
    side: OrderSide,
    price: Money,
    quantity: int,
    solution_id: int | None,
    client_order_id: str | None,
) -> Order:
    validate_order(price=price, quantity=quantity)
    if client_order_id is not None and not (1 <= len(client_order_id) <= 64):
        raise InvalidOrder(
            "invalid client order id", fields={"client_order_id": ["1 to 64 characters"]}
        )
    order_or_replay = _engine_place(
        owner_id=owner_id,
        problem_id=problem_id,
        side=side,
        price=price,
        quantity=quantity,
        solution_id=solution_id,
        client_order_id=client_order_id,
    )
    if isinstance(order_or_replay, Order):
        return order_or_replay
    order, traders, is_demo = order_or_replay
    # The activity feed's fan-out (announcing a resting bid, the traders' webhooks) was queued
    # in the same transaction (activity.services.fanout): no broker message per placement.
    if traders and is_demo:
        # The practice bot re-bids on the fill itself, not only at its next beat.
        problem_id = order.problem_id
        transaction.on_commit(lambda: _refresh_practice_bid(problem_id))
    return order


def _engine_place(
    *,
    owner_id: int,
    problem_id: int,
    side: OrderSide,
    price: Money,
    quantity: int,
    solution_id: int | None,
    client_order_id: str | None,
) -> Order | tuple[Order, list[int], bool]:
    """One call of the engine (``engine.place_order``): (the order, the traders' ids, whether
    the problem is a demo one), or the order already placed with ``client_order_id``."""
    currency = price.currency
    row = call_engine(
        "engine.place_order",
        [
            owner_id,
            problem_id,
            str(side),
            price.minor,
            str(currency),
            quantity,
            solution_id,
            client_order_id,
            usd_enabled(),
            settings.MARKET_FEE_BPS,
            str(proceeds_account_kind(currency)),
            proceeds_hold_window(currency),
            str(DEBT_CURRENCY),
        ],
        price=price,
    )
    if isinstance(row, Replay):  # another order with this id, or committed then failed
        existing = Order.objects.get(pk=row.order_id)
        return replay_order(existing, problem_id, side, price, quantity, solution_id)
    order_id, remaining, status, created_at, closed_at, is_demo, traders, replayed = row
    order = _saved(
        Order(
            pk=order_id,
            problem_id=problem_id,
            owner_id=owner_id,
            side=side,
            price_minor=price.minor,
            currency=currency,
            quantity=quantity,
            remaining=remaining,
            status=status,
            solution_id=solution_id,
            client_order_id=client_order_id,
            created_at=created_at,
            closed_at=closed_at,
        )
    )
    if replayed:  # this very order was placed before: its row, as it now is
        return order
    return order, traders, is_demo


def _saved(order: Order) -> Order:
    order._state.adding = False
    order._state.db = connection.alias
    return order


def _refresh_practice_bid(problem_id: int) -> None:
    from market.tasks import refresh_practice_bid_task

    refresh_practice_bid_task.delay(problem_id=problem_id)
