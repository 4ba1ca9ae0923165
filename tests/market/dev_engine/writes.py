"""The reference model's writes (tests/market/dev_engine/engine.py), through the ORM.

:func:`lock_accounts_and_allocate` locks the user accounts of a placement in ascending id
order (creating missing ones first) and allocates the ids of the rows to come (order, ledger
transactions, trades); :func:`write_book_change` writes the order, the ledger transactions
and their postings, the trades and entitlements, the balance deltas, the resting orders and
the problem's ``book_sequence``. The database's guards (balanced postings at commit on
PostgreSQL, append-only, CHECK constraints) apply as to every write. The PostgreSQL engine
writes the same rows in its own function (market migration 0006).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import datetime

from django.db import connection
from django.db.models import F

from market.models import (
    Account,
    AccountKind,
    Entitlement,
    LedgerTransaction,
    Order,
    Posting,
    Problem,
    Trade,
)
from market.services.ledger import (
    get_system_account,
    get_user_accounts,
    lock_accounts,
)
from tests.market.dev_engine.ledger import LedgerBatch


@dataclasses.dataclass(frozen=True, slots=True)
class Allocation:
    """Ids handed out for the rows one placement will write."""

    order_id: int | None
    transaction_ids: list[int]
    trade_ids: list[int]
    fees_account_id: int | None


def lock_accounts_and_allocate(
    *,
    keys: Iterable[tuple[int, AccountKind]],
    currency: str,
    new_order: bool,
    transactions: int,
    trades: int,
) -> tuple[dict[tuple[int, AccountKind], Account], dict[int, Account], Allocation]:
    """Lock the user accounts ``keys`` (creating missing ones) and allocate row ids.

    Precondition: inside ``transaction.atomic`` with the problem's row locked. Missing
    accounts are created in ascending ``(user, kind)`` order before any account is locked
    (``get_user_accounts``), then all are locked in ascending id order (``lock_accounts``).
    """
    accounts = get_user_accounts(keys=sorted(set(keys)), currency=currency)
    locked = lock_accounts(accounts.values())
    accounts = {key: locked[account.pk] for key, account in accounts.items()}
    fees = get_system_account(currency=currency, kind=AccountKind.FEES) if trades else None
    order_ids = _ids("market_order", 1 if new_order else 0)
    return (
        accounts,
        locked,
        Allocation(
            order_ids[0] if order_ids else None,
            _ids("market_ledgertransaction", transactions),
            _ids("market_trade", trades),
            fees.pk if fees else None,
        ),
    )


def _ids(table: str, count: int) -> list[int]:
    """``count`` fresh ids of ``table``, from its sequence (taken under the problem's lock)."""
    if count == 0:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [table, count],
        )
        return [row[0] for row in cursor.fetchall()]


@dataclasses.dataclass
class BookChange:
    """Everything one placement or cancel writes, gathered before the writes."""

    problem_id: int
    currency: str
    now: datetime
    ledger: LedgerBatch
    new_orders: list[Order] = dataclasses.field(default_factory=list)
    trades: list[Trade] = dataclasses.field(default_factory=list)
    changed_orders: list[Order] = dataclasses.field(default_factory=list)


def write_book_change(change: BookChange) -> None:
    """Write ``change`` (precondition: the problem and the accounts are locked)."""
    for order in change.new_orders:
        order.save(force_insert=True)
    ledger = change.ledger
    LedgerTransaction.objects.bulk_create(
        LedgerTransaction(pk=pk, kind=kind, currency=change.currency, memo=memo)
        for pk, kind, memo in ledger.transactions
    )
    Posting.objects.bulk_create(
        Posting(transaction_id=txn, account_id=pk, currency=change.currency, amount_minor=amount)
        for txn, pk, amount in ledger.postings
    )
    for pk, amount in sorted(ledger.deltas.items()):
        if amount:
            Account.objects.filter(pk=pk).update(balance_minor=F("balance_minor") + amount)
    for trade in change.trades:
        trade.save(force_insert=True)
        Entitlement.objects.create(
            user_id=trade.buyer_id, solution_id=trade.solution_id, trade_id=trade.pk
        )
    for order in change.changed_orders:
        order.save(update_fields=["remaining", "status", "closed_at"])
    Problem.objects.filter(pk=change.problem_id).update(book_sequence=F("book_sequence") + 1)
