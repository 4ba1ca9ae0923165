"""Transfer reversals: proceeds already paid out, asked back from the seller's Stripe account.

A taking (market.payments.services.provenance) that reaches proceeds a seller withdrew posts
the amount Stripe transferred to the REVERSALS receivable and writes a REQUESTED
:class:`TransferReversal`; after commit the task ``payments.send_transfer_reversal`` calls
``POST /v1/transfers/<id>/reversals`` with ``Idempotency-Key: transfer-reversal-<id>`` (the
same key on every retry). Stripe's answer closes it in one transaction:

- a reversal object: REVERSALS +a, clearing −a (the money is back in our Stripe balance);
- a 4xx refusal (the connected account's balance is too low, the transfer is already
  reversed): REVERSALS +a, LOSSES −a, a recorded loss; but if a won dispute meanwhile gave
  the amount back to the seller, the seller kept it twice, so it is taken from their
  available USD (the rest as debt) and from their proceeds lot instead;
- a 5xx, 409, 429 or connection error: it stays REQUESTED (retried by Celery, then by the
  stuck-withdrawal sweep).

A retry first lists the transfer's reversals and closes with one carrying our
``metadata.transfer_reversal_id`` (Stripe keeps idempotency keys 24 hours only).
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import F

from market.models import Account, AccountKind, LedgerTransaction
from market.money import format_minor
from market.payments import stripe_client
from market.payments.exceptions import StripeUnavailable
from market.payments.models import (
    SaleReversal,
    TransferReversal,
    TransferReversalStatus,
    Withdrawal,
    WithdrawalStatus,
)
from market.payments.services.balances import (
    USD,
    debit_or_debt_legs,
    lock_usd_accounts,
    usd_system_account,
)
from market.payments.services.closing import list_stuck_ids, record_closed
from market.payments.services.lots import take_from_proceeds_lot
from market.payments.services.stripe_once import Attempt, Refused, make_once
from market.services.ledger import Leg, record_transaction

logger = logging.getLogger(__name__)


def send_transfer_reversal(*, reversal_id: int) -> TransferReversal:
    """Ask Stripe to reverse the transfer part of a REQUESTED reversal; close it on the answer.

    Idempotent: a closed reversal is returned as is. Raises StripeUnavailable on a temporary
    failure (the caller retries; the receivable stays).
    """
    reversal = TransferReversal.objects.select_related("withdrawal").get(pk=reversal_id)
    if reversal.status != TransferReversalStatus.REQUESTED:
        return reversal
    if reversal.withdrawal.status == WithdrawalStatus.REQUESTED:
        # Asked while the withdrawal's transfer is in flight: wait for Stripe's answer to it
        # (refused, fail_withdrawal closes this one as WITHHELD).
        raise StripeUnavailable("the withdrawal's transfer is not confirmed yet")
    TransferReversal.objects.filter(pk=reversal_id).update(attempts=F("attempts") + 1)
    transfer_id = str(reversal.withdrawal.transfer_id)
    client = stripe_client.get_client()
    answer = make_once(
        Attempt(
            label=f"transfer reversal {reversal.pk}",
            noun="reversal",
            marker=("transfer_reversal_id", str(reversal.pk)),
            is_retry=reversal.attempts > 0,
            refusal_level=logging.ERROR,
        ),
        list_earlier=lambda: client.v1.transfers.reversals.list(transfer_id, params={"limit": 100}),
        create=lambda: client.v1.transfers.reversals.create(
            transfer_id,
            params={
                "amount": reversal.amount_minor,
                "metadata": {
                    "transfer_reversal_id": str(reversal.pk),
                    "withdrawal_id": str(reversal.withdrawal_id),
                },
            },
            options={"idempotency_key": f"transfer-reversal-{reversal.pk}"},
        ),
    )
    if isinstance(answer, Refused):
        return refuse_transfer_reversal(
            reversal_id=reversal.pk, code=answer.code, message=answer.message
        )
    return complete_transfer_reversal(reversal_id=reversal.pk, stripe_reversal_id=answer.stripe_id)


def _lock_requested(reversal_id: int) -> TransferReversal | None:
    reversal = (
        TransferReversal.objects.select_for_update()
        .select_related("sale_reversal")
        .get(pk=reversal_id)
    )
    return reversal if reversal.status == TransferReversalStatus.REQUESTED else None


def complete_transfer_reversal(*, reversal_id: int, stripe_reversal_id: str) -> TransferReversal:
    """Stripe reversed the transfer: the receivable is paid into our Stripe balance."""
    with transaction.atomic():
        receivable = usd_system_account(AccountKind.REVERSALS)
        clearing = usd_system_account(AccountKind.STRIPE_CLEARING)
        reversal = _lock_requested(reversal_id)
        if reversal is None:
            return TransferReversal.objects.get(pk=reversal_id)
        _close_locked(
            reversal,
            status=TransferReversalStatus.SUCCEEDED,
            legs=[(receivable, reversal.amount_minor), (clearing, -reversal.amount_minor)],
            locked={},
            memo=f"transfer reversal {reversal.pk}: {stripe_reversal_id}",
            stripe_reversal_id=stripe_reversal_id,
        )
    return reversal


def refuse_transfer_reversal(*, reversal_id: int, code: str, message: str) -> TransferReversal:
    """Stripe refused the reversal: a recorded loss (or, if a won dispute gave the amount back
    to the seller meanwhile, taken from the seller)."""
    with transaction.atomic():
        receivable = usd_system_account(AccountKind.REVERSALS)
        losses = usd_system_account(AccountKind.LOSSES)
        reversal = _lock_requested(reversal_id)
        if reversal is None:
            return TransferReversal.objects.get(pk=reversal_id)
        sale = reversal.sale_reversal
        amount = reversal.amount_minor
        legs: list[Leg] = [(receivable, amount)]
        locked = {}
        if sale.status == SaleReversal.Status.RESTORED:
            accounts, locked = lock_usd_accounts(
                sale.seller_id, AccountKind.AVAILABLE, AccountKind.DEBT
            )
            legs += _take_back_from_seller(reversal, accounts=accounts, locked=locked)
        else:
            legs.append((losses, -amount))
        _close_locked(
            reversal,
            status=TransferReversalStatus.REFUSED,
            legs=legs,
            locked=locked,
            memo=f"transfer reversal {reversal.pk} of {format_minor(amount, USD)} refused: {code}",
            refusal=(code, message),
        )
    return reversal


def withhold_transfer_reversals(
    *,
    withdrawal: Withdrawal,
    receivable: Account,
    accounts: dict[AccountKind, Account],
    locked: dict[int, Account],
) -> None:
    """Transfer reversals a taking asked while this withdrawal's transfer was in flight: the
    transfer was refused, so the money is back in the seller's balance; each is taken from
    there (available, then debt) to pay the REVERSALS receivable, instead of asking Stripe.

    Precondition: the withdrawal and the seller's accounts are locked. The reversals are
    read after the account locks, so one written by a taking that held them is seen.
    """
    requested = (
        TransferReversal.objects.select_for_update(of=("self",))
        .filter(withdrawal=withdrawal, status=TransferReversalStatus.REQUESTED)
        .select_related("sale_reversal")
        .order_by("id")
    )
    for reversal in requested:
        amount = reversal.amount_minor
        _close_locked(
            reversal,
            status=TransferReversalStatus.WITHHELD,
            legs=[
                (receivable, amount),
                *_take_back_from_seller(reversal, accounts=accounts, locked=locked),
            ],
            locked=locked,
            memo=(
                f"transfer reversal {reversal.pk} of {format_minor(amount, USD)}: withheld, "
                f"withdrawal {withdrawal.pk} was refused"
            ),
        )


def _take_back_from_seller(
    reversal: TransferReversal,
    *,
    accounts: dict[AccountKind, Account],
    locked: dict[int, Account],
) -> list[Leg]:
    """The legs that take the reversal's amount from the seller's available USD (the rest as
    debt). If a won dispute had given it back, it went back to the seller's proceeds lot too:
    it is taken from there as well (as much as is unspent), under the seller's AVAILABLE lock.
    Precondition: the seller's AVAILABLE and DEBT accounts are locked (in ``locked``)."""
    amount = reversal.amount_minor
    legs = debit_or_debt_legs(accounts=accounts, locked=locked, amount_minor=amount)
    sale = reversal.sale_reversal
    if sale.status == SaleReversal.Status.RESTORED:
        take_from_proceeds_lot(proceeds_hold_id=sale.proceeds_hold_id, amount_minor=amount)
    return legs


def _close_locked(
    reversal: TransferReversal,
    *,
    status: TransferReversalStatus,
    legs: list[Leg],
    locked: dict[int, Account],
    memo: str,
    refusal: tuple[str, str] | None = None,
    **made: str,
) -> None:
    """Post the closing transaction of a REQUESTED reversal and record how it closed.
    Precondition: the reversal row is locked, and so are the user accounts among ``legs``
    (in ``locked``)."""
    txn = record_transaction(
        kind=LedgerTransaction.Kind.TRANSFER_REVERSAL,
        currency=USD,
        legs=legs,
        locked=locked,
        memo=memo[:200],
        idempotency_key=f"transfer-reversal-close-{reversal.pk}",
    )
    record_closed(reversal, status=status, close_transaction=txn, refusal=refusal, **made)


def list_stuck_transfer_reversal_ids() -> list[int]:
    """REQUESTED reversals older than PAYOUT_STUCK_AFTER_S (their task gave up or was lost)."""
    return list_stuck_ids(TransferReversal, requested=TransferReversalStatus.REQUESTED)
