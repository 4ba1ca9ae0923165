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
from datetime import timedelta

import stripe
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from market.models import AccountKind, LedgerTransaction
from market.money import format_minor
from market.payments import stripe_client
from market.payments.exceptions import StripeUnavailable
from market.payments.models import (
    SaleReversal,
    TransferReversal,
    TransferReversalStatus,
    WithdrawalStatus,
)
from market.payments.services.balances import (
    USD,
    debit_or_debt_legs,
    lock_usd_accounts,
    usd_system_account,
)
from market.payments.services.lots import take_from_proceeds_lot
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
    if reversal.attempts > 0:
        existing = _find_reversal(client, reversal, transfer_id)
        if existing is not None:
            return complete_transfer_reversal(reversal_id=reversal.pk, stripe_reversal_id=existing)
    try:
        made = client.v1.transfers.reversals.create(
            transfer_id,
            params={
                "amount": reversal.amount_minor,
                "metadata": {
                    "transfer_reversal_id": str(reversal.pk),
                    "withdrawal_id": str(reversal.withdrawal_id),
                },
            },
            options={"idempotency_key": f"transfer-reversal-{reversal.pk}"},
        )
    except stripe.StripeError as error:
        if stripe_client.is_temporary(error):
            logger.warning("transfer reversal %s: temporary failure: %s", reversal.pk, error)
            raise StripeUnavailable("reversal not confirmed yet: Stripe is unreachable") from error
        logger.error("transfer reversal %s refused by Stripe: %s", reversal.pk, error)
        return refuse_transfer_reversal(
            reversal_id=reversal.pk,
            code=str(error.code or type(error).__name__),
            message=stripe_client.refusal_message(error),
        )
    return complete_transfer_reversal(reversal_id=reversal.pk, stripe_reversal_id=str(made.id))


def _find_reversal(
    client: stripe.StripeClient, reversal: TransferReversal, transfer_id: str
) -> str | None:
    try:
        found = client.v1.transfers.reversals.list(transfer_id, params={"limit": 100})
    except stripe.StripeError as error:
        logger.warning("transfer reversal %s: lookup failed: %s", reversal.pk, error)
        raise StripeUnavailable("could not check for an earlier reversal") from error
    for made in found.data:
        metadata = made.to_dict().get("metadata") or {}
        if metadata.get("transfer_reversal_id") == str(reversal.pk):
            return str(made.id)
    return None


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
        txn = record_transaction(
            kind=LedgerTransaction.Kind.TRANSFER_REVERSAL,
            currency=USD,
            legs=[(receivable, reversal.amount_minor), (clearing, -reversal.amount_minor)],
            locked={},
            memo=f"transfer reversal {reversal.pk}: {stripe_reversal_id}",
            idempotency_key=f"transfer-reversal-close-{reversal.pk}",
        )
        reversal.status = TransferReversalStatus.SUCCEEDED
        reversal.stripe_reversal_id = stripe_reversal_id
        reversal.close_transaction = txn
        reversal.closed_at = timezone.now()
        reversal.save(
            update_fields=["status", "stripe_reversal_id", "close_transaction", "closed_at"]
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
            legs += debit_or_debt_legs(accounts=accounts, locked=locked, amount_minor=amount)
            # give_back put the amount back in the seller's proceeds lot too: take it from
            # there (as much as is unspent), under the seller's AVAILABLE lock.
            take_from_proceeds_lot(proceeds_hold_id=sale.proceeds_hold_id, amount_minor=amount)
        else:
            legs.append((losses, -amount))
        txn = record_transaction(
            kind=LedgerTransaction.Kind.TRANSFER_REVERSAL,
            currency=USD,
            legs=legs,
            locked=locked,
            memo=(
                f"transfer reversal {reversal.pk} of {format_minor(amount, USD)} refused: {code}"
            )[:200],
            idempotency_key=f"transfer-reversal-close-{reversal.pk}",
        )
        reversal.status = TransferReversalStatus.REFUSED
        reversal.failure_code = code[:100]
        reversal.failure_message = message[:500]
        reversal.close_transaction = txn
        reversal.closed_at = timezone.now()
        reversal.save(
            update_fields=[
                "status",
                "failure_code",
                "failure_message",
                "close_transaction",
                "closed_at",
            ]
        )
    return reversal


def list_stuck_transfer_reversal_ids() -> list[int]:
    """REQUESTED reversals older than PAYOUT_STUCK_AFTER_S (their task gave up or was lost)."""
    cutoff = timezone.now() - timedelta(seconds=settings.PAYOUT_STUCK_AFTER_S)
    return list(
        TransferReversal.objects.filter(
            status=TransferReversalStatus.REQUESTED, created_at__lt=cutoff
        )
        .order_by("id")
        .values_list("id", flat=True)
    )
