"""Writes to the double-entry ledger.

Every movement is one :class:`LedgerTransaction` whose postings sum to zero per currency.
User accounts keep a running ``balance_minor`` updated under a row lock; system accounts do
not (see :class:`market.models.Account`). PostgreSQL re-checks the zero sum at commit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from django.db import IntegrityError, transaction
from django.db.models import F

from market.exceptions import CurrencyMismatch, InsufficientFunds
from market.models import Account, AccountKind, LedgerTransaction, Posting
from market.money import Currency, format_minor

Leg = tuple[Account, int]


def get_user_account(*, user_id: int, currency: str, kind: AccountKind) -> Account:
    account, _ = Account.objects.get_or_create(owner_id=user_id, currency=currency, kind=kind)
    return account


def get_system_account(*, currency: str, kind: AccountKind) -> Account:
    account, _ = Account.objects.get_or_create(owner=None, currency=currency, kind=kind)
    return account


def get_user_accounts(
    *, keys: Iterable[tuple[int, AccountKind]], currency: str
) -> dict[tuple[int, AccountKind], Account]:
    """Fetch (creating when missing) the user accounts ``(user_id, kind)`` of one currency.

    Missing accounts are created in ascending ``(user_id, kind)`` order. A transaction that
    creates an account holds its unique-index entry until it commits, so two transactions
    creating two accounts in opposite orders would deadlock; one global order cannot.
    """
    wanted = sorted(set(keys))
    found = {
        (a.owner_id, a.kind): a
        for a in Account.objects.filter(
            owner_id__in={user_id for user_id, _ in wanted},
            currency=currency,
            kind__in={kind for _, kind in wanted},
        )
    }
    result: dict[tuple[int, AccountKind], Account] = {}
    for user_id, kind in wanted:
        account = found.get((user_id, kind))
        if account is None:
            account = get_user_account(user_id=user_id, currency=currency, kind=kind)
        result[(user_id, AccountKind(kind))] = account
    return result


def lock_accounts(accounts: Iterable[Account]) -> dict[int, Account]:
    """Lock the user accounts among ``accounts`` in ascending id order; return them fresh.

    Every path that changes a user balance locks through here, always in id order, so two
    transactions never wait on each other's accounts in a cycle. Must run inside an atomic block.
    """
    ids = sorted({a.pk for a in accounts if a.owner_id is not None})
    locked = Account.objects.select_for_update().filter(pk__in=ids).order_by("pk")
    return {a.pk: a for a in locked}


def record_transaction(
    *,
    kind: LedgerTransaction.Kind,
    currency: str,
    legs: Sequence[Leg],
    locked: dict[int, Account],
    memo: str = "",
    idempotency_key: str | None = None,
) -> LedgerTransaction:
    """Write one balanced transaction and apply it to the locked user balances.

    Precondition: inside ``transaction.atomic`` with every user account of ``legs`` in
    ``locked`` (from :func:`lock_accounts`). Refuses, before writing anything, a transaction
    that does not balance, mixes currencies, or takes a user balance below zero
    (debt accounts: above zero).
    """
    if not transaction.get_connection().in_atomic_block:
        # The locks of ``locked`` ended with their transaction: posting now would apply
        # balances nobody holds, and the movement would not commit with what caused it.
        raise RuntimeError("record_transaction must run inside the transaction that locked")
    currency = Currency(currency)
    postings = check_postings(currency=currency, legs=legs, locked=locked)
    txn = LedgerTransaction.objects.create(
        kind=kind, currency=currency, memo=memo[:200], idempotency_key=idempotency_key
    )
    Posting.objects.bulk_create(
        Posting(transaction=txn, account_id=pk, currency=currency, amount_minor=amount)
        for pk, amount in sorted(postings.items())
    )
    for pk, amount in sorted(postings.items()):
        if pk not in locked:
            continue  # a system account: its balance is the sum of its postings
        Account.objects.filter(pk=pk).update(balance_minor=F("balance_minor") + amount)
        locked[pk].balance_minor += amount
    return txn


def check_postings(
    *, currency: str, legs: Sequence[Leg], locked: dict[int, Account]
) -> dict[int, int]:
    """The non-zero postings of ``legs`` per account, after every ledger rule is checked.

    The one place the ledger's rules are decided in Python (PostgreSQL checks them again):
    one currency, a zero sum, at least one posting, every user account locked, no user
    balance below zero and no debt above zero. Reads balances from ``locked``; writes nothing.
    """
    merged: dict[int, int] = defaultdict(int)
    accounts: dict[int, Account] = {}
    for account, amount in legs:
        if account.currency != currency:
            raise CurrencyMismatch(f"a {account.currency} account cannot take {currency}")
        merged[account.pk] += amount
        accounts[account.pk] = account
    postings = {pk: amount for pk, amount in merged.items() if amount != 0}
    if sum(postings.values()) != 0:
        raise ValueError(f"unbalanced ledger transaction: {dict(merged)}")
    if not postings:
        raise ValueError("a ledger transaction needs at least one non-zero posting")

    for pk, amount in postings.items():
        account = accounts[pk]
        if account.owner_id is None:
            continue
        if pk not in locked:
            raise RuntimeError(f"account {pk} was not locked before posting")
        new_balance = locked[pk].balance_minor + amount
        if account.kind == AccountKind.DEBT:
            if new_balance > 0:
                raise ValueError("a debt account cannot go above zero")
        elif new_balance < 0:
            raise InsufficientFunds(
                f"This needs {format_minor(-amount, currency)}; you have "
                f"{format_minor(locked[pk].balance_minor, currency)} "
                f"{AccountKind(account.kind).label.lower()}."
            )
    return postings


def transfer(
    *,
    kind: LedgerTransaction.Kind,
    currency: str,
    legs: Sequence[Leg],
    memo: str = "",
    idempotency_key: str | None = None,
) -> LedgerTransaction:
    """Lock the accounts of ``legs`` and record one transaction, atomically.

    With an ``idempotency_key`` already used, returns the first transaction and moves nothing
    (the key names the movement; its legs are not compared). Two concurrent calls with one key
    move money once: the loser's insert waits on the unique key, fails when the winner commits,
    and answers with the winner's transaction.
    """
    try:
        with transaction.atomic():
            # Lock first, then look for the key: a concurrent call with the same key that
            # touches the same accounts has committed by the time the locks are ours.
            locked = lock_accounts(account for account, _ in legs)
            if idempotency_key is not None:
                existing = LedgerTransaction.objects.filter(idempotency_key=idempotency_key).first()
                if existing is not None:
                    return existing
            return record_transaction(
                kind=kind,
                currency=currency,
                legs=legs,
                locked=locked,
                memo=memo,
                idempotency_key=idempotency_key,
            )
    except IntegrityError:
        if idempotency_key is None:
            raise
        existing = LedgerTransaction.objects.filter(idempotency_key=idempotency_key).first()
        if existing is None:
            raise
        return existing
