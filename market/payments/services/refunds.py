"""Refunds the user asks for: unspent deposited USD back to the payment it came from.

Lifecycle: request_deposit_refund takes the amount from the user's refundable deposit in one
transaction (AVAILABLE → STRIPE_CLEARING, ``deposit.refunded_minor`` counts it at once, so
Stripe's own ``charge.refunded`` for it is a no-op however early it arrives) and records a
REQUESTED refund; after commit a task creates the Stripe Refund with the idempotency key
``deposit-refund-<id>``. Stripe's answer closes it: a refund object → SUCCEEDED (nothing
moves); a refusal → FAILED, the amount goes back to the user's available USD (debt first).
Temporary failures keep it REQUESTED, to be retried; a retry first looks for a refund an
earlier attempt made (Stripe keeps an idempotency key for 24 hours only).
"""

from __future__ import annotations

import logging

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F

from market.exceptions import NotFound
from market.models import AccountKind, LedgerTransaction
from market.money import format_minor
from market.payments import stripe_client
from market.payments.exceptions import (
    IdempotencyKeyReused,
    InvalidAmount,
    NotRefundable,
)
from market.payments.models import Deposit, DepositRefund, DepositStatus, RefundStatus
from market.payments.services.balances import (
    USD,
    credit_available_locked,
    lock_usd_accounts,
    settle_debt_locked,
    usd_system_account,
)
from market.payments.services.buckets import compute_usd_buckets, deposit_room_minor
from market.payments.services.chargebacks import apply_stripe_refunds_locked
from market.payments.services.closing import list_stuck_ids, record_closed
from market.payments.services.debtors import lock_problems_of_open_usd_bids
from market.payments.services.idempotency_keys import checked_key, once_per_key
from market.payments.services.lots import (
    consume_deposit_lot,
    deposit_lot_remaining,
    restore_deposit_lot,
)
from market.payments.services.stripe_once import Attempt, Refused, make_once
from market.services.ledger import record_transaction

logger = logging.getLogger(__name__)


def request_deposit_refund(
    *,
    user: AbstractBaseUser,
    deposit_id: int,
    amount_minor: int | None = None,
    idempotency_key: str | None = None,
) -> DepositRefund:
    """Refund ``amount_minor`` (default: all that can be) of one of the user's deposits.

    Debt is repaid first. Refuses, changing nothing, more than the least of: the deposit's
    amount less its refunds and open or lost disputes, and the user's refundable deposit
    (money already spent, or withdrawable proceeds, cannot go back to a card).
    """
    stripe_client.require_usd()
    if amount_minor is not None and (
        isinstance(amount_minor, bool) or not isinstance(amount_minor, int) or amount_minor <= 0
    ):
        raise InvalidAmount(
            "the amount is a positive whole number of cents",
            fields={"amount_minor": ["a positive integer"]},
        )
    key = checked_key(idempotency_key)
    return once_per_key(
        DepositRefund,
        user_id=user.pk,
        key=key,
        create=lambda: _take(
            user_id=user.pk, deposit_id=deposit_id, amount_minor=amount_minor, idempotency_key=key
        ),
        replay=lambda existing: _replay(existing, deposit_id, amount_minor),
    )


def _take(
    *, user_id: int, deposit_id: int, amount_minor: int | None, idempotency_key: str | None
) -> DepositRefund:
    from market.payments.tasks import send_deposit_refund_task

    with transaction.atomic():
        deposit = (
            Deposit.objects.select_for_update(no_key=True)
            .filter(pk=deposit_id, user_id=user_id)
            .first()
        )
        if deposit is None:
            raise NotFound("no such deposit")
        if deposit.status != DepositStatus.PAID or not deposit.payment_intent_id:
            raise NotRefundable("only a paid deposit can be refunded")
        clearing = usd_system_account(AccountKind.STRIPE_CLEARING)
        accounts, locked = lock_usd_accounts(user_id, AccountKind.AVAILABLE, AccountKind.DEBT)
        settle_debt_locked(user_id=user_id, accounts=accounts, locked=locked)
        refundable = compute_usd_buckets(
            user_id=user_id, available=accounts[AccountKind.AVAILABLE]
        ).refundable_minor
        # Only this deposit's own unspent lot goes back to its payment (M3): money spent on a
        # purchase, or another deposit's money, never leaves to this card.
        own = deposit_lot_remaining(deposit)
        limit = min(deposit_room_minor(deposit), refundable, own)
        amount = limit if amount_minor is None else amount_minor
        if amount <= 0 or amount > limit:
            # Raising rolls back the debt repayment too: a refusal changes nothing.
            raise NotRefundable(
                f"at most {format_minor(limit, USD)} of this deposit can be refunded "
                f"(its unspent part is {format_minor(own, USD)}, your refundable deposit "
                f"{format_minor(refundable, USD)}; spent money, another payment's money and "
                "sale proceeds cannot go back to this card)",
                fields={"amount_minor": [f"at most {limit}"]},
            )
        txn = record_transaction(
            kind=LedgerTransaction.Kind.REFUND,
            currency=USD,
            legs=[(accounts[AccountKind.AVAILABLE], -amount), (clearing, amount)],
            locked=locked,
            memo=f"refund of deposit {deposit.pk} requested by user {user_id}",
        )
        deposit.refunded_minor += amount
        deposit.save(update_fields=["refunded_minor"])
        consume_deposit_lot(deposit, amount)
        refund = DepositRefund.objects.create(
            user_id=user_id,
            deposit=deposit,
            amount_minor=amount,
            idempotency_key=idempotency_key,
            request_transaction=txn,
        )
        transaction.on_commit(lambda: send_deposit_refund_task.delay(refund_id=refund.pk))
    return refund


def _replay(existing: DepositRefund, deposit_id: int, amount_minor: int | None) -> DepositRefund:
    if existing.deposit_id != deposit_id or (
        amount_minor is not None and existing.amount_minor != amount_minor
    ):
        raise IdempotencyKeyReused(
            "this Idempotency-Key was already used for a different refund",
            fields={"idempotency_key": ["already used"]},
        )
    return existing


def send_deposit_refund(*, refund_id: int) -> DepositRefund:
    """Create the Stripe Refund of a REQUESTED refund and close it on Stripe's answer.

    Idempotent: a closed refund is returned as is; every attempt sends the same key.
    Raises StripeUnavailable on a temporary failure (the caller retries; nothing moves).
    """
    refund = DepositRefund.objects.select_related("deposit").get(pk=refund_id)
    if refund.status != RefundStatus.REQUESTED:
        return refund
    DepositRefund.objects.filter(pk=refund_id).update(attempts=F("attempts") + 1)
    client = stripe_client.get_client()
    payment_intent = str(refund.deposit.payment_intent_id)
    answer = make_once(
        Attempt(
            label=f"refund {refund.pk}",
            noun="refund",
            marker=("deposit_refund_id", str(refund.pk)),
            is_retry=refund.attempts > 0,
        ),
        list_earlier=lambda: client.v1.refunds.list(
            params={"payment_intent": payment_intent, "limit": 100}
        ),
        create=lambda: client.v1.refunds.create(
            params={
                "payment_intent": payment_intent,
                "amount": refund.amount_minor,
                "reason": "requested_by_customer",
                "metadata": {
                    "deposit_refund_id": str(refund.pk),
                    "deposit_id": str(refund.deposit_id),
                },
            },
            options={"idempotency_key": f"deposit-refund-{refund.pk}"},
        ),
    )
    if isinstance(answer, Refused):
        return fail_deposit_refund(refund_id=refund.pk, code=answer.code, message=answer.message)
    if answer.status in ("failed", "canceled"):
        return fail_deposit_refund(
            refund_id=refund.pk,
            code=f"refund_{answer.status}",
            message=f"Stripe could not refund this payment ({answer.status}).",
        )
    return complete_deposit_refund(refund_id=refund.pk, stripe_refund_id=answer.stripe_id)


def complete_deposit_refund(*, refund_id: int, stripe_refund_id: str) -> DepositRefund:
    """Stripe made the refund: close it (the money left the balance when requested)."""
    with transaction.atomic():
        refund = DepositRefund.objects.select_for_update().get(pk=refund_id)
        if refund.status != RefundStatus.REQUESTED:
            return refund
        record_closed(refund, status=RefundStatus.SUCCEEDED, stripe_refund_id=stripe_refund_id)
    return refund


def fail_deposit_refund(*, refund_id: int, code: str, message: str) -> DepositRefund:
    """Stripe refused the refund: the amount goes back to the user (debt first); then any
    outside refund the request was hiding is posted."""
    with transaction.atomic():
        deposit_id = DepositRefund.objects.values_list("deposit_id", flat=True).get(pk=refund_id)
        deposit = Deposit.objects.select_for_update(no_key=True).get(pk=deposit_id)
        refund = DepositRefund.objects.select_for_update().get(pk=refund_id)
        if refund.status != RefundStatus.REQUESTED:
            return refund
        clearing = usd_system_account(AccountKind.STRIPE_CLEARING)
        problems = lock_problems_of_open_usd_bids(user_id=refund.user_id)
        accounts, locked = lock_usd_accounts(
            refund.user_id, AccountKind.AVAILABLE, AccountKind.DEBT
        )
        txn = credit_available_locked(
            user_id=refund.user_id,
            kind=LedgerTransaction.Kind.REFUND,
            source=clearing,
            amount_minor=refund.amount_minor,
            accounts=accounts,
            locked=locked,
            memo=f"refund {refund.pk} of deposit {deposit.pk} refused by Stripe: {code}",
            idempotency_key=f"deposit-refund-failed-{refund.pk}",
        )
        deposit.refunded_minor -= refund.amount_minor
        deposit.save(update_fields=["refunded_minor"])
        restore_deposit_lot(deposit, refund.amount_minor)
        record_closed(
            refund, status=RefundStatus.FAILED, close_transaction=txn, refusal=(code, message)
        )
        apply_stripe_refunds_locked(deposit, locked_problem_ids=problems)
    logger.warning("refund %s failed: %s %s", refund.pk, code, message)
    return refund


def list_stuck_refund_ids() -> list[int]:
    """REQUESTED refunds older than PAYOUT_STUCK_AFTER_S (their task gave up or was lost)."""
    return list_stuck_ids(DepositRefund, requested=RefundStatus.REQUESTED)
