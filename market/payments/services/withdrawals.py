"""Withdrawals: available USD to the seller's connected account by a Stripe transfer.

Lifecycle: request_withdrawal moves the amount from AVAILABLE to HELD and records a REQUESTED
withdrawal; after commit a task calls send_withdrawal_transfer, which creates the transfer with
the idempotency key ``payout-<id>`` (the same key on every retry, by the library or by Celery,
so Stripe creates at most one transfer). Stripe's answer closes it: a transfer → PAID (HELD
leaves to the clearing account, the fee to FEES); a refusal → FAILED (HELD back to AVAILABLE).
Temporary failures leave it REQUESTED with its funds held, to be retried.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F

from market.exceptions import InsufficientFunds
from market.models import AccountKind, LedgerTransaction
from market.money import format_minor
from market.payments import stripe_client
from market.payments.exceptions import (
    ConnectAccountMissing,
    IdempotencyKeyReused,
    InvalidAmount,
    PayoutsNotEnabled,
)
from market.payments.models import (
    ConnectedAccount,
    Withdrawal,
    WithdrawalStatus,
)
from market.payments.services.balances import (
    USD,
    credit_available_locked,
    lock_usd_accounts,
    settle_debt_locked,
    usd_system_account,
)
from market.payments.services.buckets import compute_usd_buckets
from market.payments.services.closing import list_stuck_ids, record_closed
from market.payments.services.idempotency_keys import checked_key, once_per_key
from market.payments.services.lots import (
    consume_lots_for_withdrawal,
    restore_lots_of_withdrawal,
)
from market.payments.services.stripe_once import Attempt, Refused, make_once
from market.payments.services.transfer_reversals import withhold_transfer_reversals
from market.services.ledger import record_transaction

logger = logging.getLogger(__name__)


def payout_fee_for(amount_minor: int) -> int:
    """The platform's fee on a withdrawal of ``amount_minor`` (fixed + basis points, down)."""
    return settings.PAYOUT_FEE_FIXED_MINOR + amount_minor * settings.PAYOUT_FEE_BPS // 10_000


def _validate(amount_minor: object) -> int:
    if isinstance(amount_minor, bool) or not isinstance(amount_minor, int):
        raise InvalidAmount(
            "the amount is a whole number of cents", fields={"amount_minor": ["an integer"]}
        )
    low = max(settings.PAYOUT_MIN_MINOR, payout_fee_for(amount_minor) + 1)
    if amount_minor < low:
        raise InvalidAmount(
            f"the smallest withdrawal is {format_minor(low, USD)}",
            fields={"amount_minor": [f"at least {low}"]},
        )
    return amount_minor


def request_withdrawal(
    *, user: AbstractBaseUser, amount_minor: int, idempotency_key: str | None = None
) -> Withdrawal:
    """Hold ``amount_minor`` of the user's available USD and schedule its transfer.

    Any USD debt is repaid first. Refuses (changing nothing) below the minimum, without a
    connected account that can receive transfers, or without enough available funds.
    """
    stripe_client.require_usd()
    amount = _validate(amount_minor)
    key = checked_key(idempotency_key)

    def hold() -> Withdrawal:
        connected = ConnectedAccount.objects.filter(user_id=user.pk).first()
        if connected is None:
            raise ConnectAccountMissing("connect a Stripe account before withdrawing")
        if not connected.payouts_enabled:
            raise PayoutsNotEnabled(
                "your Stripe account cannot receive transfers yet: finish onboarding first"
            )
        return _hold(user_id=user.pk, connected=connected, amount_minor=amount, idempotency_key=key)

    return once_per_key(
        Withdrawal,
        user_id=user.pk,
        key=key,
        create=hold,
        replay=lambda existing: _replay(existing, amount),
    )


def _hold(
    *, user_id: int, connected: ConnectedAccount, amount_minor: int, idempotency_key: str | None
) -> Withdrawal:
    from market.payments.tasks import send_withdrawal_transfer_task

    with transaction.atomic():
        accounts, locked = lock_usd_accounts(
            user_id, AccountKind.AVAILABLE, AccountKind.HELD, AccountKind.DEBT
        )
        settle_debt_locked(user_id=user_id, accounts=accounts, locked=locked)
        # Only matured sale proceeds leave by transfer; deposits go back as refunds.
        have = compute_usd_buckets(
            user_id=user_id, available=accounts[AccountKind.AVAILABLE]
        ).withdrawable_minor
        if have < amount_minor:
            # Raising rolls back the debt repayment too: a refusal changes nothing.
            raise InsufficientFunds(
                f"this withdrawal needs {format_minor(amount_minor, USD)} of withdrawable "
                f"sale proceeds; you have {format_minor(have, USD)} (deposited money goes "
                "back only as a refund to the card or account it came from)",
                fields={"amount_minor": ["not enough withdrawable proceeds"]},
            )
        txn = record_transaction(
            kind=LedgerTransaction.Kind.WITHDRAWAL_HOLD,
            currency=USD,
            legs=[
                (accounts[AccountKind.AVAILABLE], -amount_minor),
                (accounts[AccountKind.HELD], amount_minor),
            ],
            locked=locked,
            memo=f"withdrawal by user {user_id}",
        )
        withdrawal = Withdrawal.objects.create(
            user_id=user_id,
            connected_account=connected,
            amount_minor=amount_minor,
            fee_minor=payout_fee_for(amount_minor),
            idempotency_key=idempotency_key,
            hold_transaction=txn,
        )
        consume_lots_for_withdrawal(withdrawal=withdrawal)
        transaction.on_commit(
            lambda: send_withdrawal_transfer_task.delay(withdrawal_id=withdrawal.pk)
        )
    return withdrawal


def _replay(existing: Withdrawal, amount_minor: int) -> Withdrawal:
    if existing.amount_minor != amount_minor:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was already used for a different withdrawal",
            fields={"idempotency_key": ["already used"]},
        )
    return existing


def send_withdrawal_transfer(*, withdrawal_id: int) -> Withdrawal:
    """Create the Stripe transfer of a REQUESTED withdrawal and close it on Stripe's answer.

    Idempotent: a closed withdrawal is returned as is; a retry reuses ``payout-<id>``.
    Raises StripeUnavailable on a temporary failure (the caller retries; funds stay held).
    """
    withdrawal = Withdrawal.objects.select_related("connected_account").get(pk=withdrawal_id)
    if withdrawal.status != WithdrawalStatus.REQUESTED:
        return withdrawal
    Withdrawal.objects.filter(pk=withdrawal_id).update(attempts=F("attempts") + 1)
    client = stripe_client.get_client()
    destination = withdrawal.connected_account.stripe_account_id
    answer = make_once(
        Attempt(
            label=f"withdrawal {withdrawal.pk}",
            noun="transfer",
            marker=("withdrawal_id", str(withdrawal.pk)),
            # A refusal now would release funds that already left: look for our transfer.
            is_retry=withdrawal.attempts > 0,
        ),
        list_earlier=lambda: client.v1.transfers.list(
            params={
                "transfer_group": f"withdrawal-{withdrawal.pk}",
                "destination": destination,
                "limit": 10,
            }
        ),
        create=lambda: client.v1.transfers.create(
            params={
                "amount": withdrawal.net_minor,
                "currency": "usd",
                "destination": destination,
                "transfer_group": f"withdrawal-{withdrawal.pk}",
                "metadata": {
                    "withdrawal_id": str(withdrawal.pk),
                    "user_id": str(withdrawal.user_id),
                },
            },
            options={"idempotency_key": f"payout-{withdrawal.pk}"},
        ),
    )
    if isinstance(answer, Refused):
        return fail_withdrawal(
            withdrawal_id=withdrawal.pk, code=answer.code, message=answer.message
        )
    return complete_withdrawal(withdrawal_id=withdrawal.pk, transfer_id=answer.stripe_id)


def _lock_requested(withdrawal_id: int) -> Withdrawal | None:
    withdrawal = Withdrawal.objects.select_for_update().get(pk=withdrawal_id)
    return withdrawal if withdrawal.status == WithdrawalStatus.REQUESTED else None


def complete_withdrawal(*, withdrawal_id: int, transfer_id: str) -> Withdrawal:
    """Stripe confirmed the transfer: the held amount leaves (net to clearing, fee to FEES)."""
    with transaction.atomic():
        withdrawal = _lock_requested(withdrawal_id)
        if withdrawal is None:
            return Withdrawal.objects.get(pk=withdrawal_id)
        # System accounts before user-account locks (creating one while holding those locks
        # could deadlock with the engine, which gets the fee account before its locks).
        clearing = usd_system_account(AccountKind.STRIPE_CLEARING)
        fees = usd_system_account(AccountKind.FEES)
        accounts, locked = lock_usd_accounts(withdrawal.user_id, AccountKind.HELD)
        legs = [
            (accounts[AccountKind.HELD], -withdrawal.amount_minor),
            (clearing, withdrawal.net_minor),
        ]
        if withdrawal.fee_minor:
            legs.append((fees, withdrawal.fee_minor))
        txn = record_transaction(
            kind=LedgerTransaction.Kind.WITHDRAWAL_PAID,
            currency=USD,
            legs=legs,
            locked=locked,
            memo=f"withdrawal {withdrawal.pk}: transfer {transfer_id}",
            idempotency_key=f"withdrawal-close-{withdrawal.pk}",
        )
        record_closed(
            withdrawal,
            status=WithdrawalStatus.PAID,
            close_transaction=txn,
            transfer_id=transfer_id,
        )
    return withdrawal


def fail_withdrawal(*, withdrawal_id: int, code: str, message: str) -> Withdrawal:
    """Stripe refused the transfer: the held amount goes back to available (debt first)."""
    with transaction.atomic():
        withdrawal = _lock_requested(withdrawal_id)
        if withdrawal is None:
            return Withdrawal.objects.get(pk=withdrawal_id)
        receivable = usd_system_account(AccountKind.REVERSALS)
        accounts, locked = lock_usd_accounts(
            withdrawal.user_id, AccountKind.AVAILABLE, AccountKind.HELD, AccountKind.DEBT
        )
        txn = credit_available_locked(
            user_id=withdrawal.user_id,
            kind=LedgerTransaction.Kind.WITHDRAWAL_RELEASE,
            source=accounts[AccountKind.HELD],
            amount_minor=withdrawal.amount_minor,
            accounts=accounts,
            locked=locked,
            memo=f"withdrawal {withdrawal.pk} failed: {code}",
            idempotency_key=f"withdrawal-close-{withdrawal.pk}",
        )
        restore_lots_of_withdrawal(withdrawal=withdrawal)
        withhold_transfer_reversals(
            withdrawal=withdrawal, receivable=receivable, accounts=accounts, locked=locked
        )
        record_closed(
            withdrawal,
            status=WithdrawalStatus.FAILED,
            close_transaction=txn,
            refusal=(code, message),
        )
    logger.warning("withdrawal %s failed: %s %s", withdrawal.pk, code, message)
    return withdrawal


def list_stuck_withdrawal_ids() -> list[int]:
    """REQUESTED withdrawals older than PAYOUT_STUCK_AFTER_S (their task gave up or was lost)."""
    return list_stuck_ids(Withdrawal, requested=WithdrawalStatus.REQUESTED)
