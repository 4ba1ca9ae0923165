"""Readers used by market tests to assert balances and invariants exactly."""

from __future__ import annotations

from django.db.models import Sum

from market.models import Account, AccountKind, Order, OrderSide, OrderStatus, Posting


def balance(user: object, kind: AccountKind = AccountKind.AVAILABLE, currency: str = "DEMO") -> int:
    account = Account.objects.filter(owner=user, currency=currency, kind=kind).first()
    return account.balance_minor if account else 0


def snapshot() -> tuple[list[tuple[int, int]], int, int, list[tuple[int, str, int]]]:
    """Everything a refusal must leave unchanged."""
    return (
        sorted(Account.objects.values_list("id", "balance_minor")),
        Posting.objects.count(),
        Order.objects.count(),
        sorted(Order.objects.values_list("id", "status", "remaining")),
    )


def assert_ledger_invariants() -> None:
    for currency in ("DEMO", "USD"):
        total = Posting.objects.filter(currency=currency).aggregate(s=Sum("amount_minor"))["s"]
        assert (total or 0) == 0, f"{currency} does not sum to zero: {total}"
    for account in Account.objects.exclude(owner=None):
        posted = account.postings.aggregate(s=Sum("amount_minor"))["s"] or 0
        assert account.balance_minor == posted, f"{account} balance drifted from its postings"
        if account.kind != AccountKind.DEBT:
            assert account.balance_minor >= 0
    for account in Account.objects.filter(kind=AccountKind.HELD).exclude(owner=None):
        open_bids = Order.objects.filter(
            owner=account.owner,
            currency=account.currency,
            side=OrderSide.BID,
            status=OrderStatus.OPEN,
        )
        expected = sum(o.price_minor * o.remaining for o in open_bids)
        assert account.balance_minor == expected, f"{account}: held != open bids"
