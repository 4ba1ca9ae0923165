"""Readers used by market tests to assert balances and invariants exactly.

:func:`assert_market_invariants` is the list of issue 2, §4, checked with a few SQL queries so
that the stateful and concurrency tests can call it after every step.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Sum

from market.models import Account, AccountKind, Order, OrderSide, OrderStatus, Posting


def balance(user: object, kind: AccountKind = AccountKind.AVAILABLE, currency: str = "DEMO") -> int:
    account = Account.objects.filter(owner=user, currency=currency, kind=kind).first()
    return account.balance_minor if account else 0


def snapshot() -> tuple[object, ...]:
    """Everything a refusal must leave unchanged: accounts, ledger, orders, trades, entitlements."""
    from market.models import Entitlement, LedgerTransaction, Trade

    return (
        sorted(Account.objects.values_list("id", "owner_id", "currency", "kind", "balance_minor")),
        sorted(Posting.objects.values_list("id", "account_id", "amount_minor")),
        LedgerTransaction.objects.count(),
        sorted(Order.objects.values_list("id", "status", "remaining", "client_order_id")),
        Trade.objects.count(),
        Entitlement.objects.count(),
    )


def check_deferred_constraints() -> None:
    """Run the deferred ledger triggers now (tests inside one transaction never commit)."""
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def _rows(sql: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return list(cursor.fetchall())


HELD_VIOLATION = "held != open bids + in-flight withdrawals"
FEES_VIOLATION = "the fee account differs from the trade and withdrawal fees"

# Each query returns the rows that violate one invariant; all must be empty.
VIOLATIONS: dict[str, str] = {
    "a currency does not sum to zero": """
        SELECT currency, SUM(amount_minor) FROM market_posting
        GROUP BY currency HAVING SUM(amount_minor) <> 0""",
    "a ledger transaction does not balance": """
        SELECT transaction_id, SUM(amount_minor) FROM market_posting
        GROUP BY transaction_id HAVING SUM(amount_minor) <> 0""",
    "a posting's currency is not its account's": """
        SELECT p.id FROM market_posting p JOIN market_account a ON a.id = p.account_id
        JOIN market_ledgertransaction t ON t.id = p.transaction_id
        WHERE p.currency <> a.currency OR p.currency <> t.currency""",
    "a user balance drifted from its postings": """
        SELECT a.id, a.balance_minor, COALESCE(SUM(p.amount_minor), 0)
        FROM market_account a LEFT JOIN market_posting p ON p.account_id = a.id
        WHERE a.owner_id IS NOT NULL GROUP BY a.id
        HAVING a.balance_minor <> COALESCE(SUM(p.amount_minor), 0)""",
    "a user balance is negative": """
        SELECT id, kind, balance_minor FROM market_account
        WHERE owner_id IS NOT NULL AND kind <> 'debt' AND balance_minor < 0""",
    # HELD holds a user's open bids and, in USD, their withdrawals not yet closed by Stripe.
    HELD_VIOLATION: """
        WITH bids AS (
            SELECT owner_id, currency, SUM(price_minor * remaining) AS value
            FROM market_order WHERE side = 'bid' AND status = 'open'
            GROUP BY owner_id, currency),
        withdrawals AS (
            SELECT user_id AS owner_id, currency, SUM(amount_minor) AS value
            FROM payments_withdrawal WHERE status = 'requested'
            GROUP BY user_id, currency),
        expected AS (
            SELECT owner_id, currency, SUM(value) AS value
            FROM (SELECT * FROM bids UNION ALL SELECT * FROM withdrawals) AS both_kinds
            GROUP BY owner_id, currency),
        held AS (
            SELECT owner_id, currency, balance_minor FROM market_account WHERE kind = 'held')
        SELECT COALESCE(e.owner_id, h.owner_id), COALESCE(e.currency, h.currency),
               COALESCE(h.balance_minor, 0), COALESCE(e.value, 0)
        FROM expected e FULL OUTER JOIN held h
            ON h.owner_id = e.owner_id AND h.currency = e.currency
        WHERE COALESCE(h.balance_minor, 0) <> COALESCE(e.value, 0)""",
    "an order's fills disagree with its quantity, remaining or status": """
        SELECT o.id, o.quantity, o.remaining, o.status, COUNT(t.id)
        FROM market_order o
        LEFT JOIN market_trade t ON (o.side = 'bid' AND t.bid_id = o.id)
                                 OR (o.side = 'ask' AND t.ask_id = o.id)
        GROUP BY o.id
        HAVING COUNT(t.id) <> o.quantity - o.remaining OR o.remaining < 0
            OR o.remaining > o.quantity
            OR (o.status = 'open' AND o.remaining = 0)
            OR (o.status = 'filled' AND o.remaining <> 0)""",
    "a trade's ask does not sell its seller's ACCEPTED solution": """
        SELECT t.id FROM market_trade t
        JOIN market_order a ON a.id = t.ask_id JOIN market_order b ON b.id = t.bid_id
        JOIN market_solution s ON s.id = t.solution_id
        WHERE a.side <> 'ask' OR b.side <> 'bid' OR a.solution_id <> t.solution_id
           OR s.status <> 'accepted' OR s.solver_id <> t.seller_id OR a.owner_id <> t.seller_id
           OR b.owner_id <> t.buyer_id OR a.problem_id <> t.problem_id
           OR b.problem_id <> t.problem_id OR s.problem_id <> t.problem_id
           OR t.currency <> a.currency OR t.currency <> b.currency""",
    "a trade is not at the maker's price": """
        SELECT t.id FROM market_trade t
        JOIN market_order a ON a.id = t.ask_id JOIN market_order b ON b.id = t.bid_id
        WHERE t.price_minor <> CASE WHEN a.id < b.id THEN a.price_minor ELSE b.price_minor END
           OR t.maker_side <> CASE WHEN a.id < b.id THEN 'ask' ELSE 'bid' END
           OR b.price_minor < a.price_minor""",
    "a self-trade": """
        SELECT id FROM market_trade WHERE buyer_id = seller_id""",
    "a buyer owns two copies of a solution": """
        SELECT buyer_id, solution_id FROM market_trade
        GROUP BY buyer_id, solution_id HAVING COUNT(*) > 1""",
    # The solution limit (migration 0019): held + the open bid's remaining within 100.
    "an open bid may buy past the solution limit": """
        SELECT o.id, o.remaining, COUNT(t.id) FROM market_order o
        LEFT JOIN market_trade t ON t.buyer_id = o.owner_id AND t.problem_id = o.problem_id
        WHERE o.side = 'bid' AND o.status = 'open'
        GROUP BY o.id HAVING o.remaining + COUNT(t.id) > 100""",
    # The sales limit (migration 0021): sold + the open ask's remaining within 100.
    "an open ask may sell past the sales limit": """
        SELECT o.id, o.remaining, COUNT(t.id) FROM market_order o
        LEFT JOIN market_trade t ON t.solution_id = o.solution_id
        WHERE o.side = 'ask' AND o.status = 'open'
        GROUP BY o.id HAVING o.remaining + COUNT(t.id) > 100""",
    "a trade without its entitlement": """
        SELECT t.id FROM market_trade t LEFT JOIN market_entitlement e ON e.trade_id = t.id
        WHERE e.id IS NULL OR e.user_id <> t.buyer_id OR e.solution_id <> t.solution_id""",
    "the book is crossed (an open bid and ask that may trade)": """
        SELECT b.id, a.id FROM market_order b
        JOIN market_order a ON a.problem_id = b.problem_id AND a.side = 'ask'
            AND a.status = 'open' AND a.price_minor <= b.price_minor
        WHERE b.side = 'bid' AND b.status = 'open' AND a.owner_id <> b.owner_id
          AND NOT EXISTS (SELECT 1 FROM market_entitlement e
                          WHERE e.user_id = b.owner_id AND e.solution_id = a.solution_id)""",
    # FEES takes trade fees and, in USD, the fees of withdrawals Stripe paid.
    FEES_VIOLATION: """
        SELECT a.currency FROM market_account a
        LEFT JOIN (SELECT currency, SUM(fee_minor) AS fees FROM market_trade GROUP BY currency) f
            ON f.currency = a.currency
        LEFT JOIN (SELECT currency, SUM(fee_minor) AS fees FROM payments_withdrawal
                   WHERE status = 'paid' GROUP BY currency) w
            ON w.currency = a.currency
        -- Fees given back by sale reversals (issue 27) that a won dispute did not restore.
        LEFT JOIN (SELECT t.currency, SUM(r.fee_minor) AS fees FROM payments_salereversal r
                   JOIN market_trade t ON t.id = r.trade_id
                   WHERE r.status <> 'restored' GROUP BY t.currency) r
            ON r.currency = a.currency
        WHERE a.owner_id IS NULL AND a.kind = 'fees'
          AND (SELECT COALESCE(SUM(amount_minor), 0) FROM market_posting p
               WHERE p.account_id = a.id)
              <> COALESCE(f.fees, 0) + COALESCE(w.fees, 0) - COALESCE(r.fees, 0)""",
}


FEE_VIOLATION = "a trade's fee is not MARKET_FEE_BPS of its price, rounded down"
FEE_SQL = """
    SELECT id, price_minor, fee_minor FROM market_trade
    WHERE fee_minor <> (price_minor * %s) / 10000"""


def market_violations() -> dict[str, list[tuple[object, ...]]]:
    """Every violated invariant with its rows (as text), read in one statement: the state
    machines call this after every step, and one round trip instead of 13 is most of its cost.
    """
    checks = [*VIOLATIONS.items(), (FEE_VIOLATION, FEE_SQL)]
    query = " UNION ALL ".join(
        f"SELECT {index}, v::text FROM ({sql}) AS v" for index, (_, sql) in enumerate(checks)
    )
    found: dict[str, list[tuple[object, ...]]] = {}
    for index, row in _rows(query, [settings.MARKET_FEE_BPS]):
        found.setdefault(checks[int(index)][0], []).append((row,))
    return found


def assert_market_invariants() -> None:
    """Every invariant of issue 2 §4, plus the deferred ledger triggers."""
    check_deferred_constraints()
    violations = market_violations()
    assert violations == {}, violations


def assert_ledger_invariants() -> None:
    """The one invariant check for the market and the ledger (payments tests add their
    reconciliation of Stripe-side rows on top, tests/payments/helpers.py).

    Each currency sums to zero, and per user and currency HELD == the remaining value of
    their open bids + their withdrawals still in flight, plus every check of
    :data:`VIOLATIONS`.
    """
    with _one_snapshot():
        _check_ledger_invariants()


@contextlib.contextmanager
def _one_snapshot() -> Iterator[None]:
    """Read every table as of one moment. Inside a test's transaction nothing else can commit
    into what it sees; outside one (live servers with real workers, where the practice bot
    re-bids after each fill), a REPEATABLE READ transaction keeps the account and the orders
    it is compared with from being read on either side of another commit."""
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def _check_ledger_invariants() -> None:
    for currency in ("DEMO", "USD"):
        total = Posting.objects.filter(currency=currency).aggregate(s=Sum("amount_minor"))["s"]
        assert (total or 0) == 0, f"{currency} does not sum to zero: {total}"
    assert_market_invariants()
    # The same held rule again in Python, independently of the SQL above.
    from market.payments.models import Withdrawal, WithdrawalStatus

    in_flight = Withdrawal.objects.filter(status=WithdrawalStatus.REQUESTED)
    for account in Account.objects.filter(kind=AccountKind.HELD).exclude(owner=None):
        open_bids = Order.objects.filter(
            owner=account.owner,
            currency=account.currency,
            side=OrderSide.BID,
            status=OrderStatus.OPEN,
        )
        expected = sum(o.price_minor * o.remaining for o in open_bids)
        expected += sum(
            w.amount_minor for w in in_flight.filter(user=account.owner, currency=account.currency)
        )
        assert account.balance_minor == expected, (
            f"{account}: held {account.balance_minor} != open bids + in-flight withdrawals "
            f"{expected}"
        )
