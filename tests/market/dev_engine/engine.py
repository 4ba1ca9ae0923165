"""The matching engine in Python: the tests' reference model of the database engine.

The product runs one engine, the database functions (``market/migrations/0006_engine_v2.py``,
called by ``market.services.orders``). This is the Python engine that the SQLite development
server ran until issue 26, kept as an oracle: the same rules through the ORM, one placement
per transaction. tests/market/test_differential.py holds it and the database engine to one
naive matcher, placement for placement, and the ``engine`` fixture runs the market tests
against both (an outside differential run found 0 divergences in 33,800 operations).
The rules are stated once, in the docstring of ``market.services.orders``.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Subquery
from django.utils import timezone

from market.exceptions import (
    CurrencyMismatch,
    InsufficientFunds,
    NotFound,
    NotTradable,
    OrderNotOpen,
)
from market.models import (
    Account,
    AccountKind,
    LedgerTransaction,
    Order,
    OrderSide,
    OrderStatus,
    Problem,
    Trade,
)
from market.money import Currency, Money, format_minor
from market.payments.exceptions import UsdDisabled
from market.payments.services.balances import settle_debt_locked
from market.payments.services.proceeds import hold_trade_proceeds, proceeds_account_kind
from market.payments.stripe_client import usd_enabled
from market.services.ledger import get_system_account
from market.services.order_checks import (
    SALES_LIMIT,
    SOLUTION_LIMIT,
    ask_already_open,
    bid_already_open,
    check_ask_solution,
    replay_order,
    sales_limit,
    self_trade,
    solution_limit,
)
from tests.market.dev_engine.ledger import LedgerBatch
from tests.market.dev_engine.matching import plan_fills
from tests.market.dev_engine.problem_lock import lock_problem_for_placement
from tests.market.dev_engine.writes import (
    BookChange,
    lock_accounts_and_allocate,
    write_book_change,
)


def place(
    *,
    owner_id: int,
    problem_id: int,
    side: OrderSide,
    price: Money,
    quantity: int,
    solution_id: int | None,
    client_order_id: str | None,
) -> tuple[Order, list[int], bool]:
    """Place a validated order; returns it, the users who traded, and whether it is a demo."""
    try:
        with transaction.atomic():
            return _place_locked(
                owner_id=owner_id,
                problem_id=problem_id,
                side=side,
                price=price,
                quantity=quantity,
                solution_id=solution_id,
                client_order_id=client_order_id,
            )
    except IntegrityError:
        # The same client order id was used concurrently on another problem (the problem
        # lock serialises the same problem): answer as the replay would.
        if client_order_id is None:
            raise
        existing = Order.objects.filter(owner_id=owner_id, client_order_id=client_order_id).first()
        if existing is None:
            raise
        return replay_order(existing, problem_id, side, price, quantity, solution_id), [], False


def cancel(*, user_id: int, order_id: int) -> Order:
    """Cancel the user's open order and release exactly the remaining hold."""
    from market.services.orders import DEBT_CURRENCY

    with transaction.atomic():
        # One statement finds the order's problem and locks it: missing == not yours.
        problem_id = (
            Problem.objects.select_for_update(no_key=True)
            .filter(
                pk=Subquery(
                    Order.objects.filter(pk=order_id, owner_id=user_id).values("problem_id")
                )
            )
            .values_list("pk", flat=True)
            .first()
        )
        if problem_id is None:
            raise NotFound("no such order")
        # Read under the problem's lock: every change of an order takes it first.
        order = Order.objects.get(pk=order_id)
        if order.status != OrderStatus.OPEN:
            raise OrderNotOpen(f"the order is already {order.status}")
        is_bid = order.side == OrderSide.BID
        keys = _bid_keys(order.owner_id, order.currency) if is_bid else []
        accounts, locked, ids = lock_accounts_and_allocate(
            keys=keys, currency=order.currency, new_order=False, transactions=int(is_bid), trades=0
        )
        change = BookChange(
            problem_id=problem_id,
            currency=order.currency,
            now=timezone.now(),
            ledger=LedgerBatch(order.currency, locked, ids.transaction_ids),
        )
        if is_bid:
            amount = order.price_minor * order.remaining
            change.ledger.add(
                kind=LedgerTransaction.Kind.BID_RELEASE,
                legs=[
                    (accounts[(order.owner_id, AccountKind.HELD)], -amount),
                    (accounts[(order.owner_id, AccountKind.AVAILABLE)], amount),
                ],
                memo=f"cancel bid {order.pk}",
            )
        order.status = OrderStatus.CANCELLED
        order.closed_at = change.now
        change.changed_orders.append(order)
        write_book_change(change)
        if is_bid and order.currency == DEBT_CURRENCY:
            # After the release is written: the repayment spends what it freed.
            _repay_debt(order.owner_id, accounts, locked)
    return order


def _bid_keys(user_id: int, currency: str) -> list[tuple[int, AccountKind]]:
    """The accounts a bidder's hold moves between (and USD debt, repaid first)."""
    from market.services.orders import DEBT_CURRENCY

    keys = [(user_id, AccountKind.AVAILABLE), (user_id, AccountKind.HELD)]
    if currency == DEBT_CURRENCY:
        keys.append((user_id, AccountKind.DEBT))
    return keys


def _place_locked(
    *,
    owner_id: int,
    problem_id: int,
    side: OrderSide,
    price: Money,
    quantity: int,
    solution_id: int | None,
    client_order_id: str | None,
) -> tuple[Order, list[int], bool]:
    from market.engine_refusals import USD_DISABLED
    from market.services.orders import DEBT_CURRENCY, fee_for

    try:
        problem = lock_problem_for_placement(
            problem_id, owner_id=owner_id, solution_id=solution_id, client_order_id=client_order_id
        )
    except Problem.DoesNotExist:
        raise NotFound("no such problem") from None
    if problem.replayed_order_id is not None:
        existing = Order.objects.get(pk=problem.replayed_order_id)
        return replay_order(existing, problem_id, side, price, quantity, solution_id), [], False
    if not problem.is_tradable:
        raise NotTradable(f"this problem is {problem.status} and cannot be traded")
    if price.currency != problem.currency:
        raise CurrencyMismatch(
            f"this problem trades in {problem.currency}, not {price.currency}",
            fields={"currency": [f"must be {problem.currency}"]},
        )
    currency = problem.currency
    if currency == Currency.USD and not usd_enabled():
        # USD balances exist only with Stripe configured; without it no USD may change hands.
        # Cancelling (which only releases a bid's own hold) stays allowed.
        raise UsdDisabled(USD_DISABLED)
    if side == OrderSide.ASK:
        check_ask_solution(problem.ask_solution_status)
        if problem.open_ask_id is not None:
            raise ask_already_open(problem.open_ask_id)
        if problem.open_bid_id is not None:
            bid_price = Order.objects.values_list("price_minor", flat=True).get(
                pk=problem.open_bid_id
            )
            if bid_price >= price.minor:
                raise self_trade(problem.open_bid_id)
        # Sold + what this ask may sell stays within the limit (sold counted up to limit + 1).
        if problem.sold + quantity > SALES_LIMIT:
            raise sales_limit(problem.sold, SALES_LIMIT, max(SALES_LIMIT - problem.sold, 0))
    else:
        if problem.open_bid_id is not None:
            raise bid_already_open(problem.open_bid_id)
        own_ask = problem.cheapest_own_ask
        if own_ask is not None and own_ask[1] <= price.minor:
            raise self_trade(own_ask[0])
        # Held + what this bid may buy stays within the limit (held counted up to limit + 1).
        if problem.held + quantity > SOLUTION_LIMIT:
            raise solution_limit(
                problem.held, SOLUTION_LIMIT, max(SOLUTION_LIMIT - problem.held, 0)
            )

    fills = plan_fills(
        owner_id=owner_id,
        problem_id=problem.pk,
        currency=currency,
        side=side,
        price_minor=price.minor,
        quantity=quantity,
        solution_id=solution_id,
    )
    remaining = quantity - len(fills)
    keys: set[tuple[int, AccountKind]] = set()
    if side == OrderSide.BID:
        # HELD only when part of the bid rests (as the database engine does).
        keys |= {k for k in _bid_keys(owner_id, currency) if k[1] != AccountKind.HELD or remaining}
    for fill in fills:
        # An incoming bid pays from its owner's available, a resting bid from its hold.
        keys |= {
            (fill.buyer_id, AccountKind.AVAILABLE if side == OrderSide.BID else AccountKind.HELD),
            (fill.seller_id, proceeds_account_kind(currency)),
        }
    # All user accounts at once, in ascending id order, after the fills are known: the
    # problem lock is the only lock held while planning, so no cycle can form.
    accounts, locked, ids = lock_accounts_and_allocate(
        keys=keys,
        currency=currency,
        new_order=True,
        transactions=len(fills) + (side == OrderSide.BID and remaining > 0),
        trades=len(fills),
    )
    if fills and ids.fees_account_id is None:
        # The fee account is a system account: neither locked nor updated (a hot row shared
        # by every trade); its balance is the sum of its postings. Made on first use.
        ids = dataclasses.replace(
            ids, fees_account_id=get_system_account(currency=currency, kind=AccountKind.FEES).pk
        )

    def account(user_id: int, kind: AccountKind) -> Account:
        return accounts[(user_id, kind)]

    if side == OrderSide.BID:
        if currency == DEBT_CURRENCY:
            # Money owed to the platform (a refund or dispute of spent funds) is repaid before
            # it can buy anything; a refusal below rolls the repayment back too.
            _repay_debt(owner_id, accounts, locked)
        # A bid needs price x quantity available; it holds price x what rests (what fills
        # at once is paid from available at the trade's price, below).
        needed = price.minor * quantity
        have = locked[account(owner_id, AccountKind.AVAILABLE).pk].balance_minor
        if have < needed:
            raise InsufficientFunds(
                f"This bid needs {format_minor(needed, currency)}; "
                f"you have {format_minor(have, currency)} available.",
                fields={"price_minor": ["not enough available funds"]},
            )

    now = timezone.now()
    order = Order(
        pk=ids.order_id,
        problem_id=problem.pk,
        owner_id=owner_id,
        side=side,
        price_minor=price.minor,
        currency=currency,
        quantity=quantity,
        remaining=remaining,
        status=OrderStatus.FILLED if remaining == 0 else OrderStatus.OPEN,
        solution_id=solution_id,
        client_order_id=client_order_id,
        created_at=now,
        closed_at=now if len(fills) == quantity else None,
    )
    change = BookChange(
        problem_id=problem.pk,
        currency=currency,
        now=now,
        ledger=LedgerBatch(currency, locked, ids.transaction_ids),
        new_orders=[order],
    )
    if side == OrderSide.BID and remaining > 0:
        hold = price.minor * remaining
        change.ledger.add(
            kind=LedgerTransaction.Kind.BID_HOLD,
            legs=[
                (account(owner_id, AccountKind.AVAILABLE), -hold),
                (account(owner_id, AccountKind.HELD), hold),
            ],
            memo=f"hold for bid {order.pk}",
        )
    fees = Account(pk=ids.fees_account_id, owner_id=None, currency=currency, kind=AccountKind.FEES)
    for fill, trade_id in zip(fills, ids.trade_ids, strict=True):
        bid_id, ask_id = (
            (order.pk, fill.resting.pk) if side == OrderSide.BID else (fill.resting.pk, order.pk)
        )
        fee = fee_for(fill.price_minor)
        # The buyer pays the maker's price: an incoming bid from available (a better price
        # costs less), a resting bid from its hold (its own price, which is the maker's).
        payer = AccountKind.AVAILABLE if side == OrderSide.BID else AccountKind.HELD
        legs = [
            (account(fill.buyer_id, payer), -fill.price_minor),
            # USD proceeds wait in PENDING for their hold window (market.payments).
            (account(fill.seller_id, proceeds_account_kind(currency)), fill.price_minor - fee),
            (fees, fee),
        ]
        txn_id = change.ledger.add(
            kind=LedgerTransaction.Kind.TRADE,
            legs=legs,
            memo=f"solution {fill.solution_id}: bid {bid_id} x ask {ask_id}",
        )
        change.trades.append(
            Trade(
                pk=trade_id,
                problem_id=problem.pk,
                bid_id=bid_id,
                ask_id=ask_id,
                buyer_id=fill.buyer_id,
                seller_id=fill.seller_id,
                solution_id=fill.solution_id,
                price_minor=fill.price_minor,
                fee_minor=fee,
                currency=currency,
                maker_side=fill.resting.side,
                ledger_transaction_id=txn_id,
                created_at=now,
            )
        )
        _fill_one(fill.resting, now)
        change.changed_orders.append(fill.resting)
    write_book_change(change)
    for trade in change.trades:
        hold_trade_proceeds(trade=trade)
    traders = [t.buyer_id for t in change.trades] + [t.seller_id for t in change.trades]
    # The triggers of activity migration 0003 write the trade events and the fan-out rows.
    return order, traders, problem.is_demo


def _repay_debt(
    user_id: int, accounts: dict[tuple[int, AccountKind], Account], locked: dict[int, Account]
) -> None:
    """Repay the user's USD debt from their available USD (their accounts are locked)."""
    settle_debt_locked(
        user_id=user_id,
        accounts={
            AccountKind.AVAILABLE: accounts[(user_id, AccountKind.AVAILABLE)],
            AccountKind.DEBT: accounts[(user_id, AccountKind.DEBT)],
        },
        locked=locked,
    )


def _fill_one(order: Order, now: datetime) -> None:
    """Take one copy off a resting order, in memory (written by ``write_book_change``)."""
    order.remaining -= 1
    if order.remaining == 0:
        order.status = OrderStatus.FILLED
        order.closed_at = now
