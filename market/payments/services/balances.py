"""USD ledger moves shared by the payments services: debits that may become debt, money
coming back to a user's available USD, and debt settlement.

A balance that would go negative is never clipped: what the user's available USD cannot cover
is recorded in their DEBT account (<= 0), and paid back from the next money that becomes
available to them (:func:`settle_debt_locked`).
"""

from __future__ import annotations

from collections.abc import Iterable

from market.models import Account, AccountKind, LedgerTransaction
from market.money import Currency
from market.services.ledger import (
    Leg,
    get_system_account,
    get_user_accounts,
    lock_accounts,
    record_transaction,
)

USD = Currency.USD


def usd_account(user_id: int, kind: AccountKind) -> Account:
    return get_user_accounts(keys=[(user_id, kind)], currency=USD)[(user_id, kind)]


def usd_system_account(kind: AccountKind) -> Account:
    return get_system_account(currency=USD, kind=kind)


def lock_usd_accounts(
    user_id: int, *kinds: AccountKind
) -> tuple[dict[AccountKind, Account], dict[int, Account]]:
    """Get (creating if needed) and lock the user's USD accounts of ``kinds``, in id order.

    Precondition: inside ``transaction.atomic``.
    """
    # Created in the ledger's one global order, so first-time creation cannot deadlock
    # with the matching engine creating the same user's accounts.
    created = get_user_accounts(keys=[(user_id, kind) for kind in kinds], currency=Currency.USD)
    accounts = {kind: created[(user_id, kind)] for kind in kinds}
    return accounts, lock_accounts(accounts.values())


def lock_buyer_and_sellers(
    buyer: int, sellers: Iterable[int]
) -> tuple[dict[tuple[int, AccountKind], Account], dict[int, Account]]:
    """Get and lock, in one call and id order, what a taking or a give-back moves: the buyer's
    USD AVAILABLE and DEBT and each seller's PENDING and AVAILABLE (docs/payments.md, "Lock
    order": after the cause's row, the system accounts and the proceeds holds)."""
    keys = [(buyer, AccountKind.AVAILABLE), (buyer, AccountKind.DEBT)]
    for seller in sorted(set(sellers)):
        keys += [(seller, AccountKind.PENDING), (seller, AccountKind.AVAILABLE)]
    accounts = get_user_accounts(keys=keys, currency=USD)
    return accounts, lock_accounts(accounts.values())


def debit_or_debt_legs(
    *, accounts: dict[AccountKind, Account], locked: dict[int, Account], amount_minor: int
) -> list[Leg]:
    """Legs taking ``amount_minor`` from the user: available first, the rest as debt."""
    available = accounts[AccountKind.AVAILABLE]
    debt = accounts[AccountKind.DEBT]
    from_available = min(max(locked[available.pk].balance_minor, 0), amount_minor)
    legs: list[Leg] = []
    if from_available:
        legs.append((available, -from_available))
    if amount_minor - from_available:
        legs.append((debt, -(amount_minor - from_available)))
    return legs


def settle_debt_locked(
    *, user_id: int, accounts: dict[AccountKind, Account], locked: dict[int, Account]
) -> LedgerTransaction | None:
    """Pay the user's USD debt from their available USD, as far as it goes.

    Precondition: the user's AVAILABLE and DEBT accounts are in ``accounts`` and locked.
    """
    available = accounts[AccountKind.AVAILABLE]
    debt = accounts[AccountKind.DEBT]
    amount = min(locked[available.pk].balance_minor, -locked[debt.pk].balance_minor)
    if amount <= 0:
        return None
    return record_transaction(
        kind=LedgerTransaction.Kind.DEBT_SETTLE,
        currency=USD,
        legs=[(available, -amount), (debt, amount)],
        locked=locked,
        memo=f"debt repaid by user {user_id}",
    )


def credit_available_locked(
    *,
    user_id: int,
    kind: LedgerTransaction.Kind,
    source: Account,
    amount_minor: int,
    accounts: dict[AccountKind, Account],
    locked: dict[int, Account],
    memo: str,
    idempotency_key: str | None = None,
) -> LedgerTransaction:
    """Move ``amount_minor`` from ``source`` to the user's available USD, then repay debt.

    The one path by which held, pending or frozen money comes back to a user: matured
    proceeds, a refused withdrawal or refund, a won dispute. Precondition: the user's
    AVAILABLE and DEBT accounts (and ``source`` if it is theirs) are in ``accounts`` and
    locked.
    """
    txn = record_transaction(
        kind=kind,
        currency=USD,
        legs=[(source, -amount_minor), (accounts[AccountKind.AVAILABLE], amount_minor)],
        locked=locked,
        memo=memo,
        idempotency_key=idempotency_key,
    )
    settle_debt_locked(user_id=user_id, accounts=accounts, locked=locked)
    return txn
