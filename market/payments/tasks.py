"""Celery tasks of the payments app: thin, idempotent, called with ids as keyword arguments."""

from __future__ import annotations

from celery import shared_task

from market.payments.exceptions import PaymentsBusy, StripeUnavailable
from market.payments.services import proceeds, refunds, transfer_reversals, withdrawals


@shared_task(
    name="payments.send_withdrawal_transfer",
    acks_late=True,
    autoretry_for=(StripeUnavailable,),
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=8,
)
def send_withdrawal_transfer_task(*, withdrawal_id: int) -> str:
    # Every attempt sends Idempotency-Key payout-<id>: Stripe makes at most one transfer.
    return str(withdrawals.send_withdrawal_transfer(withdrawal_id=withdrawal_id).status)


@shared_task(name="payments.release_matured_proceeds", acks_late=True)
def release_matured_proceeds_task() -> int:
    return proceeds.release_matured_proceeds()


@shared_task(
    name="payments.send_deposit_refund",
    acks_late=True,
    autoretry_for=(StripeUnavailable, PaymentsBusy),
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=8,
)
def send_deposit_refund_task(*, refund_id: int) -> str:
    # Every attempt sends Idempotency-Key deposit-refund-<id>: Stripe refunds at most once.
    return str(refunds.send_deposit_refund(refund_id=refund_id).status)


@shared_task(
    name="payments.send_transfer_reversal",
    acks_late=True,
    autoretry_for=(StripeUnavailable,),
    retry_backoff=True,
    retry_backoff_max=600,
    max_retries=8,
)
def send_transfer_reversal_task(*, reversal_id: int) -> str:
    # Every attempt sends Idempotency-Key transfer-reversal-<id>: Stripe reverses at most once.
    return str(transfer_reversals.send_transfer_reversal(reversal_id=reversal_id).status)


@shared_task(name="payments.retry_stuck_withdrawals", acks_late=True)
def retry_stuck_withdrawals_task() -> int:
    """Re-send withdrawals, user refunds and transfer reversals that Stripe has not confirmed
    for too long."""
    ids = withdrawals.list_stuck_withdrawal_ids()
    for withdrawal_id in ids:
        send_withdrawal_transfer_task.delay(withdrawal_id=withdrawal_id)
    refund_ids = refunds.list_stuck_refund_ids()
    for refund_id in refund_ids:
        send_deposit_refund_task.delay(refund_id=refund_id)
    reversal_ids = transfer_reversals.list_stuck_transfer_reversal_ids()
    for reversal_id in reversal_ids:
        send_transfer_reversal_task.delay(reversal_id=reversal_id)
    return len(ids) + len(refund_ids) + len(reversal_ids)


@shared_task(name="payments.reconcile_with_stripe", acks_late=True)
def reconcile_with_stripe_task() -> int:
    """The ledger against Stripe's balance transactions; returns the difference in cents."""
    from market.payments.services.reconciliation import reconcile_with_stripe

    return reconcile_with_stripe().difference_minor
