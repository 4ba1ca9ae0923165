"""The ledger history in a user's terms: each posting to one of their accounts, described by
what happened ("Bought a solution to Factor 391 for 10.00 DEMO", "Held for your bid on ...").

The account's label is its ``AccountKind`` label, the one the balances use, so an account is
called the same everywhere."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser

from market.models import AccountKind, LedgerTransaction, Order, Posting, Trade
from market.money import format_minor

Kind = LedgerTransaction.Kind
# The engine's memo of a bid's hold and release names the bid ("hold for bid 12").
_BID_IN_MEMO = re.compile(r"\bbid (\d+)\b")


@dataclasses.dataclass(frozen=True, slots=True)
class HistoryRow:
    posting: Posting
    description: str
    account_label: str


def account_label(kind: str) -> str:
    return str(AccountKind(kind).label) if kind in AccountKind.values else kind


def describe_postings(*, user: AbstractBaseUser, postings: Sequence[Posting]) -> list[HistoryRow]:
    """Rows for ``postings`` (the user's own, with ``transaction`` and ``account`` loaded)."""
    postings = list(postings)
    transaction_ids = {p.transaction_id for p in postings}
    trades = {
        t.ledger_transaction_id: t
        for t in Trade.objects.filter(ledger_transaction_id__in=transaction_ids).select_related(
            "problem"
        )
    }
    bid_ids = {
        int(m.group(1))
        for p in postings
        if p.transaction.kind in (Kind.BID_HOLD, Kind.BID_RELEASE)
        and (m := _BID_IN_MEMO.search(p.transaction.memo))
    }
    # Only the user's own orders: a memo never makes another user's order readable.
    bid_titles = dict(
        Order.objects.filter(pk__in=bid_ids, owner_id=user.pk).values_list("pk", "problem__title")
    )
    rows = []
    for posting in postings:
        text = _describe(user, posting, trades.get(posting.transaction_id), bid_titles)
        rows.append(HistoryRow(posting, text, account_label(posting.account.kind)))
    return rows


def _describe(
    user: AbstractBaseUser, posting: Posting, trade: Trade | None, bid_titles: dict[int, str]
) -> str:
    txn = posting.transaction
    kind = posting.account.kind
    amount = posting.amount_minor
    if txn.kind == Kind.TRADE and trade is not None:
        price = format_minor(trade.price_minor, trade.currency)
        title = trade.problem.title
        if trade.buyer_id == user.pk:
            if kind == AccountKind.AVAILABLE and amount > 0:
                return f"Price improvement returned on {title}: your bid was above the price"
            if -amount > trade.price_minor:
                held = format_minor(-amount, trade.currency)
                return f"Bought a solution to {title} for {price} (from the {held} held)"
            return f"Bought a solution to {title} for {price}"
        fee = format_minor(trade.fee_minor, trade.currency)
        if kind == AccountKind.PENDING:
            return f"Sold a solution to {title} for {price} (fee {fee}); held until cleared"
        return f"Sold a solution to {title} for {price} (fee {fee})"
    if txn.kind in (Kind.BID_HOLD, Kind.BID_RELEASE):
        match = _BID_IN_MEMO.search(txn.memo)
        title = bid_titles.get(int(match.group(1))) if match else None
        where = f" on {title}" if title else ""
        if txn.kind == Kind.BID_HOLD:
            return f"Held for your bid{where}"
        return f"Released: your bid{where} was cancelled"
    return _OTHER.get(str(txn.kind), txn.get_kind_display())


_OTHER = {
    Kind.DEMO_GRANT: "DEMO credits received (not money)",
    Kind.DEPOSIT: "Deposit by card",
    Kind.REFUND: "Deposit refunded to your card",
    Kind.DISPUTE: "Deposit disputed with your bank",
    Kind.WITHDRAWAL_HOLD: "Held for your withdrawal",
    Kind.WITHDRAWAL_PAID: "Withdrawal paid out",
    Kind.WITHDRAWAL_RELEASE: "Withdrawal returned to your balance",
    Kind.PROCEEDS_RELEASE: "Sale proceeds cleared: now available",
    Kind.DEBT_SETTLE: "Amount owed to the platform repaid",
}
