"""The matching engine's SQL: lock what a placement needs, then write it in one statement.

``market.services.orders`` decides (the rules live there and in ``ledger.check_postings``);
this module only reads and writes rows, in as few round trips as PostgreSQL allows, because
every round trip is time spent holding the problem's row lock:

- :func:`lock_accounts_and_allocate` locks the user accounts of a placement in ascending id
  order and allocates the ids of the rows to come (order, ledger transactions, trades) from
  their sequences, in one statement;
- :func:`write_book_change` inserts the order, the ledger transactions and their postings,
  the trades and entitlements, applies the balance deltas, updates the resting orders and
  bumps the problem's ``book_sequence``: one statement of data-modifying CTEs over arrays.

Foreign keys are deferred and the ledger's triggers (balanced postings at commit,
append-only, asks only on ACCEPTED solutions) and CHECK constraints apply as they do to the
ORM's writes. PostgreSQL only: the engine runs on PostgreSQL in every deployment and test;
SQLite (``make run``) takes the ORM path of :func:`orm_write_book_change`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import datetime

from django.db import connection

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
from market.services.ledger import LedgerBatch, get_user_accounts, lock_accounts


@dataclasses.dataclass(frozen=True, slots=True)
class Allocation:
    """Ids handed out by the sequences for the rows one placement will write."""

    order_id: int | None
    transaction_ids: list[int]
    trade_ids: list[int]
    fees_account_id: int | None


_LOCK_SQL = """
WITH ids AS MATERIALIZED (
    SELECT CASE WHEN %(new_order)s
                THEN nextval(pg_get_serial_sequence('market_order', 'id')) END AS order_id,
           ARRAY(SELECT nextval(pg_get_serial_sequence('market_ledgertransaction', 'id'))
                 FROM generate_series(1, %(transactions)s)) AS transaction_ids,
           ARRAY(SELECT nextval(pg_get_serial_sequence('market_trade', 'id'))
                 FROM generate_series(1, %(trades)s)) AS trade_ids,
           (SELECT id FROM market_account
             WHERE owner_id IS NULL AND currency = %(currency)s AND kind = 'fees') AS fees_id,
           (SELECT count(*) FROM market_account
             WHERE currency = %(currency)s
               AND (owner_id, kind) IN (SELECT * FROM unnest(%(owners)s::bigint[],
                                                             %(kinds)s::text[]))) AS existing
)
SELECT ids.order_id, ids.transaction_ids, ids.trade_ids, ids.fees_id,
       a.id, a.owner_id, a.kind, a.balance_minor
FROM ids LEFT JOIN LATERAL (
    SELECT id, owner_id, kind, balance_minor FROM market_account
    WHERE currency = %(currency)s
      AND (owner_id, kind) IN (SELECT * FROM unnest(%(owners)s::bigint[], %(kinds)s::text[]))
      -- Lock only when every account exists (a one-time filter, checked before any row is
      -- locked): creating an account while holding account locks could deadlock.
      AND ids.existing = %(wanted)s
    ORDER BY id
    FOR UPDATE
) a ON true
ORDER BY a.id
"""


def lock_accounts_and_allocate(
    *,
    keys: Iterable[tuple[int, AccountKind]],
    currency: str,
    new_order: bool,
    transactions: int,
    trades: int,
) -> tuple[dict[tuple[int, AccountKind], Account], dict[int, Account], Allocation]:
    """Lock the user accounts ``keys`` (creating missing ones) and allocate row ids.

    Precondition: inside ``transaction.atomic`` with the problem's row locked. Accounts are
    locked in ascending id order, like :func:`market.services.ledger.lock_accounts`. When one
    does not exist yet, the statement locks nothing; the missing ones are then created in
    ascending ``(user, kind)`` order before any account is locked (``get_user_accounts``: a
    new account holds its unique-index entry until commit, so creating one while holding
    account locks could close a cycle), and all are locked through ``lock_accounts``.
    """
    wanted = sorted(set(keys))
    if connection.vendor != "postgresql":
        return _sqlite_lock_and_allocate(wanted, currency, new_order, transactions, trades)
    with connection.cursor() as cursor:
        cursor.execute(
            _LOCK_SQL,
            {
                "new_order": new_order,
                "transactions": transactions,
                "trades": trades,
                "currency": currency,
                "owners": [user_id for user_id, _ in wanted],
                "kinds": [str(kind) for _, kind in wanted],
                "wanted": len(wanted),
            },
        )
        rows = cursor.fetchall()
    order_id, transaction_ids, trade_ids, fees_id = rows[0][:4]
    accounts: dict[tuple[int, AccountKind], Account] = {}
    for *_, pk, owner_id, kind, balance in rows:
        if pk is not None:
            account = Account(
                pk=pk, owner_id=owner_id, currency=currency, kind=kind, balance_minor=balance
            )
            account._state.adding = False
            account._state.db = connection.alias
            accounts[(owner_id, AccountKind(kind))] = account
    if len(accounts) < len(wanted):  # first use of an account: nothing was locked
        accounts = get_user_accounts(keys=wanted, currency=currency)
        locked = lock_accounts(accounts.values())
        accounts = {key: locked[account.pk] for key, account in accounts.items()}
        return accounts, locked, Allocation(order_id, transaction_ids, trade_ids, fees_id)
    locked = {account.pk: account for account in accounts.values()}
    return accounts, locked, Allocation(order_id, transaction_ids, trade_ids, fees_id)


def _sqlite_lock_and_allocate(
    wanted: list[tuple[int, AccountKind]],
    currency: str,
    new_order: bool,
    transactions: int,
    trades: int,
) -> tuple[dict[tuple[int, AccountKind], Account], dict[int, Account], Allocation]:
    """SQLite (``make run``): the ORM's accounts, and ids taken from ``sqlite_sequence``.

    Bumping ``sqlite_sequence`` is a write, so it takes SQLite's database lock at once: two
    placements cannot be handed the same ids.
    """
    from market.services.ledger import get_system_account

    accounts = get_user_accounts(keys=wanted, currency=currency)
    locked = lock_accounts(accounts.values())
    accounts = {key: locked[account.pk] for key, account in accounts.items()}
    fees = get_system_account(currency=currency, kind=AccountKind.FEES) if trades else None
    order_ids = _sqlite_ids("market_order", 1 if new_order else 0)
    return (
        accounts,
        locked,
        Allocation(
            order_ids[0] if order_ids else None,
            _sqlite_ids("market_ledgertransaction", transactions),
            _sqlite_ids("market_trade", trades),
            fees.pk if fees else None,
        ),
    )


def _sqlite_ids(table: str, count: int) -> list[int]:
    if count == 0:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE sqlite_sequence SET seq = seq + %s WHERE name = %s RETURNING seq",
            [count, table],
        )
        row = cursor.fetchone()
        if row is None:
            cursor.execute(f"SELECT COALESCE(MAX(id), 0) + %s FROM {table}", [count])  # noqa: S608
            row = cursor.fetchone()
            cursor.execute(
                "INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, row[0]]
            )
    last = int(row[0])
    return list(range(last - count + 1, last + 1))


_WRITE_SQL = """
WITH new_order AS (
    INSERT INTO market_order (id, problem_id, owner_id, side, price_minor, currency, quantity,
                              remaining, status, solution_id, client_order_id, created_at,
                              closed_at)
    SELECT * FROM unnest(%(o_id)s::bigint[], %(o_problem)s::bigint[], %(o_owner)s::int[],
                         %(o_side)s::text[], %(o_price)s::bigint[], %(o_currency)s::text[],
                         %(o_quantity)s::int[], %(o_remaining)s::int[], %(o_status)s::text[],
                         %(o_solution)s::bigint[], %(o_client)s::text[],
                         %(o_created)s::timestamptz[], %(o_closed)s::timestamptz[])
), transactions AS (
    INSERT INTO market_ledgertransaction (id, kind, currency, memo, idempotency_key, created_at)
    SELECT t.id, t.kind, %(currency)s, t.memo, NULL, %(now)s
    FROM unnest(%(t_id)s::bigint[], %(t_kind)s::text[], %(t_memo)s::text[]) AS t(id, kind, memo)
), postings AS (
    INSERT INTO market_posting (transaction_id, account_id, currency, amount_minor)
    SELECT p.txn, p.account, %(currency)s, p.amount
    FROM unnest(%(p_txn)s::bigint[], %(p_account)s::bigint[], %(p_amount)s::bigint[])
         AS p(txn, account, amount)
    ORDER BY p.txn, p.account
), balances AS (
    UPDATE market_account AS a SET balance_minor = a.balance_minor + d.amount
    FROM unnest(%(d_account)s::bigint[], %(d_amount)s::bigint[]) AS d(account, amount)
    WHERE a.id = d.account
), trades AS (
    INSERT INTO market_trade (id, problem_id, bid_id, ask_id, buyer_id, seller_id, solution_id,
                              price_minor, fee_minor, currency, maker_side,
                              ledger_transaction_id, created_at)
    SELECT tr.id, %(problem)s, tr.bid, tr.ask, tr.buyer, tr.seller, tr.solution, tr.price,
           tr.fee, %(currency)s, tr.maker, tr.txn, %(now)s
    FROM unnest(%(tr_id)s::bigint[], %(tr_bid)s::bigint[], %(tr_ask)s::bigint[],
                %(tr_buyer)s::int[], %(tr_seller)s::int[], %(tr_solution)s::bigint[],
                %(tr_price)s::bigint[], %(tr_fee)s::bigint[], %(tr_maker)s::text[],
                %(tr_txn)s::bigint[])
         AS tr(id, bid, ask, buyer, seller, solution, price, fee, maker, txn)
), entitlements AS (
    INSERT INTO market_entitlement (user_id, solution_id, trade_id, created_at)
    SELECT e.buyer, e.solution, e.trade, %(now)s
    FROM unnest(%(tr_buyer)s::int[], %(tr_solution)s::bigint[], %(tr_id)s::bigint[])
         AS e(buyer, solution, trade)
), resting AS (
    UPDATE market_order AS o
    SET remaining = r.remaining, status = r.status, closed_at = r.closed
    FROM unnest(%(r_id)s::bigint[], %(r_remaining)s::int[], %(r_status)s::text[],
                %(r_closed)s::timestamptz[]) AS r(id, remaining, status, closed)
    WHERE o.id = r.id
), book AS (
    UPDATE market_problem SET book_sequence = book_sequence + 1 WHERE id = %(problem)s
)
SELECT 1
"""


@dataclasses.dataclass
class BookChange:
    """Everything one placement or cancel writes, gathered before the single write."""

    problem_id: int
    currency: str
    now: datetime
    ledger: LedgerBatch
    new_orders: list[Order] = dataclasses.field(default_factory=list)
    trades: list[Trade] = dataclasses.field(default_factory=list)
    changed_orders: list[Order] = dataclasses.field(default_factory=list)


def write_book_change(change: BookChange) -> None:
    """Write ``change`` in one statement (precondition: the problem and accounts are locked)."""
    if connection.vendor != "postgresql":
        orm_write_book_change(change)
        return
    orders, trades, ledger = change.new_orders, change.trades, change.ledger
    params = {
        "problem": change.problem_id,
        "currency": change.currency,
        "now": change.now,
        "o_id": [o.pk for o in orders],
        "o_problem": [o.problem_id for o in orders],
        "o_owner": [o.owner_id for o in orders],
        "o_side": [o.side for o in orders],
        "o_price": [o.price_minor for o in orders],
        "o_currency": [o.currency for o in orders],
        "o_quantity": [o.quantity for o in orders],
        "o_remaining": [o.remaining for o in orders],
        "o_status": [o.status for o in orders],
        "o_solution": [o.solution_id for o in orders],
        "o_client": [o.client_order_id for o in orders],
        "o_created": [o.created_at for o in orders],
        "o_closed": [o.closed_at for o in orders],
        "t_id": [t[0] for t in ledger.transactions],
        "t_kind": [str(t[1]) for t in ledger.transactions],
        "t_memo": [t[2] for t in ledger.transactions],
        "p_txn": [p[0] for p in ledger.postings],
        "p_account": [p[1] for p in ledger.postings],
        "p_amount": [p[2] for p in ledger.postings],
        "d_account": [pk for pk, amount in sorted(ledger.deltas.items()) if amount],
        "d_amount": [amount for _, amount in sorted(ledger.deltas.items()) if amount],
        "tr_id": [t.pk for t in trades],
        "tr_bid": [t.bid_id for t in trades],
        "tr_ask": [t.ask_id for t in trades],
        "tr_buyer": [t.buyer_id for t in trades],
        "tr_seller": [t.seller_id for t in trades],
        "tr_solution": [t.solution_id for t in trades],
        "tr_price": [t.price_minor for t in trades],
        "tr_fee": [t.fee_minor for t in trades],
        "tr_maker": [t.maker_side for t in trades],
        "tr_txn": [t.ledger_transaction_id for t in trades],
        "r_id": [o.pk for o in change.changed_orders],
        "r_remaining": [o.remaining for o in change.changed_orders],
        "r_status": [o.status for o in change.changed_orders],
        "r_closed": [o.closed_at for o in change.changed_orders],
    }
    with connection.cursor() as cursor:
        cursor.execute(_WRITE_SQL, params)
    _mark_saved([*orders, *trades])


def orm_write_book_change(change: BookChange) -> None:
    """The same rows through the ORM, for SQLite (development only; not the fast path)."""
    from django.db.models import F

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


def _mark_saved(instances: Iterable[Order | Trade]) -> None:
    for instance in instances:
        instance._state.adding = False
        instance._state.db = connection.alias
