"""Payments models: payouts."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from market.models import LedgerTransaction, Trade
from market.money import Currency


class ConnectedAccount(models.Model):
    """A seller's Stripe connected account (Accounts v2, recipient configuration)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="connected_account"
    )
    stripe_account_id = models.CharField(max_length=255, unique=True)
    # Kept under the names every Connect integration uses. For a recipient-only v2 account:
    # payouts_enabled = the stripe_transfers capability is active (we may transfer to it);
    # details_submitted = nothing currently due; charges_enabled = it could take card payments
    # itself (never needed by us: buyers pay the platform).
    charges_enabled = models.BooleanField(default=False)
    payouts_enabled = models.BooleanField(default=False)
    details_submitted = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    refreshed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.user_id} -> {self.stripe_account_id}"


class WithdrawalStatus(models.TextChoices):
    REQUESTED = "requested", "Funds held; transfer not yet confirmed by Stripe"
    PAID = "paid", "Transferred to your Stripe account"
    FAILED = "failed", "Failed: funds released"


class Withdrawal(models.Model):
    """Available USD leaving to the seller's connected account by a Stripe transfer.

    ``amount_minor`` leaves the user's balance; ``amount_minor - fee_minor`` is transferred.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="withdrawals"
    )
    connected_account = models.ForeignKey(
        ConnectedAccount, on_delete=models.PROTECT, related_name="withdrawals"
    )
    amount_minor = models.BigIntegerField()
    fee_minor = models.BigIntegerField()
    currency = models.CharField(max_length=8, choices=Currency.choices, default=Currency.USD)
    status = models.CharField(
        max_length=10, choices=WithdrawalStatus.choices, default=WithdrawalStatus.REQUESTED
    )
    idempotency_key = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    transfer_id = models.CharField(max_length=255, null=True, blank=True, unique=True)  # noqa: DJ001
    attempts = models.PositiveIntegerField(default=0)
    failure_code = models.CharField(max_length=100, blank=True)
    failure_message = models.CharField(max_length=500, blank=True)
    hold_transaction = models.OneToOneField(
        LedgerTransaction, on_delete=models.PROTECT, related_name="+"
    )
    close_transaction = models.OneToOneField(
        LedgerTransaction, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(fee_minor__gte=0, amount_minor__gt=F("fee_minor")),
                name="withdrawal_amount_exceeds_fee",
            ),
            models.CheckConstraint(
                condition=Q(currency=Currency.USD), name="withdrawal_currency_usd"
            ),
            models.CheckConstraint(
                condition=Q(status=WithdrawalStatus.REQUESTED, close_transaction__isnull=True)
                | (~Q(status=WithdrawalStatus.REQUESTED) & Q(close_transaction__isnull=False)),
                name="withdrawal_closed_iff_close_transaction",
            ),
            models.CheckConstraint(
                condition=~Q(status=WithdrawalStatus.PAID) | Q(transfer_id__isnull=False),
                name="withdrawal_paid_has_transfer",
            ),
            models.UniqueConstraint(
                fields=["user", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="withdrawal_unique_idempotency_key",
            ),
        ]
        indexes = [models.Index(fields=["user", "-id"], name="withdrawal_user_recent")]

    def __str__(self) -> str:
        return f"withdrawal {self.pk} {self.amount_minor} {self.status}"

    @property
    def net_minor(self) -> int:
        return self.amount_minor - self.fee_minor


class ProceedsHold(models.Model):
    """A USD sale's proceeds in the seller's PENDING account until ``available_at``.

    Created in the trade's own transaction (market.services.orders); released to AVAILABLE by
    release_matured_proceeds.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="proceeds_holds"
    )
    trade = models.OneToOneField(Trade, on_delete=models.PROTECT, related_name="proceeds_hold")
    amount_minor = models.BigIntegerField()
    currency = models.CharField(max_length=8, choices=Currency.choices, default=Currency.USD)
    available_at = models.DateTimeField()
    # Taken back because the money that bought the sale was refunded or disputed; only the
    # rest is released (a fully reversed hold is never released).
    # db_default: the engine's SQL inserts holds without naming this column.
    reversed_minor = models.BigIntegerField(default=0, db_default=0)
    release_transaction = models.OneToOneField(
        LedgerTransaction, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    released_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_minor__gt=0), name="proceedshold_amount_positive"
            ),
            models.CheckConstraint(
                condition=Q(released_at__isnull=True, release_transaction__isnull=True)
                | Q(released_at__isnull=False, release_transaction__isnull=False),
                name="proceedshold_released_iff_transaction",
            ),
            models.CheckConstraint(
                condition=Q(reversed_minor__gte=0, reversed_minor__lte=F("amount_minor")),
                name="proceedshold_reversed_within_amount",
            ),
        ]
        indexes = [
            models.Index(
                fields=["available_at"],
                condition=Q(released_at__isnull=True),
                name="proceedshold_due",
            ),
        ]

    def __str__(self) -> str:
        return f"proceeds {self.amount_minor} for {self.user_id} at {self.available_at}"
