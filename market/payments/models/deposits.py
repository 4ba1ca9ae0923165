"""Payments models: deposits."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from market.models import LedgerTransaction
from market.money import Currency


class StripeEvent(models.Model):
    """A webhook event we have handled. Inserted in the same database transaction as the
    ledger posting it causes, so an event id is processed exactly once."""

    class Outcome(models.TextChoices):
        PROCESSED = "processed", "Processed"
        IGNORED = "ignored", "Ignored (nothing to do)"

    event_id = models.CharField(max_length=255, unique=True)
    type = models.CharField(max_length=100)
    livemode = models.BooleanField(default=False)
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    detail = models.CharField(max_length=200, blank=True)
    ledger_transaction = models.ForeignKey(
        LedgerTransaction, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    received_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.event_id} {self.type} {self.outcome}"


class DepositStatus(models.TextChoices):
    CREATED = "created", "Created"  # our row exists; the Checkout Session may not yet
    OPEN = "open", "Waiting for payment"
    PAID = "paid", "Paid"
    EXPIRED = "expired", "Expired"
    FAILED = "failed", "Payment failed"


class Deposit(models.Model):
    """One Stripe Checkout Session for one amount the user chose."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="deposits"
    )
    amount_minor = models.BigIntegerField()
    currency = models.CharField(max_length=8, choices=Currency.choices, default=Currency.USD)
    status = models.CharField(
        max_length=10, choices=DepositStatus.choices, default=DepositStatus.CREATED
    )
    # NULL until Stripe answered; unique so that a session is credited to one deposit only.
    checkout_session_id = models.CharField(max_length=255, null=True, blank=True, unique=True)  # noqa: DJ001
    checkout_url = models.TextField(blank=True)
    payment_intent_id = models.CharField(max_length=255, null=True, blank=True, unique=True)  # noqa: DJ001
    # The client's Idempotency-Key (API) or a form token (pages); replays return this row.
    idempotency_key = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    # What our ledger has given back of this deposit by refund: refunds the user asked for
    # (from the moment they are requested, reversed if Stripe refuses) and refunds made at
    # Stripe (charge.refunded). Refunds + disputes (open or lost) never exceed the amount.
    refunded_minor = models.BigIntegerField(default=0)
    # The largest cumulative ``amount_refunded`` Stripe reported for the payment.
    stripe_refunded_minor = models.BigIntegerField(default=0)
    ledger_transaction = models.OneToOneField(
        LedgerTransaction, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    paid_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount_minor__gt=0), name="deposit_amount_positive"),
            models.CheckConstraint(condition=Q(currency=Currency.USD), name="deposit_currency_usd"),
            models.CheckConstraint(
                condition=Q(refunded_minor__gte=0, refunded_minor__lte=F("amount_minor")),
                name="deposit_refund_within_amount",
            ),
            models.CheckConstraint(
                condition=Q(
                    stripe_refunded_minor__gte=0, stripe_refunded_minor__lte=F("amount_minor")
                ),
                name="deposit_stripe_refund_within_amount",
            ),
            models.CheckConstraint(
                condition=~Q(status=DepositStatus.PAID) | Q(ledger_transaction__isnull=False),
                name="deposit_paid_has_ledger_transaction",
            ),
            models.UniqueConstraint(
                fields=["user", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="deposit_unique_idempotency_key",
            ),
        ]
        indexes = [models.Index(fields=["user", "-id"], name="deposit_user_recent")]

    def __str__(self) -> str:
        return f"deposit {self.pk} {self.amount_minor} {self.currency} {self.status}"


class DisputeStatus(models.TextChoices):
    OPEN = "open", "Open: funds frozen"
    WON = "won", "Won: funds released"
    LOST = "lost", "Lost: funds returned to the card holder"


# Stripe's dispute statuses, exactly (https://docs.stripe.com/api/disputes/object#dispute_object-status).
STRIPE_DISPUTE_OPEN_STATUSES = (
    "warning_needs_response",
    "warning_under_review",
    "needs_response",
    "under_review",
)
STRIPE_DISPUTE_CLOSED_STATUSES = ("warning_closed", "won", "lost")


class Dispute(models.Model):
    """A chargeback on a deposit's payment. While open, its amount sits in DISPUTES."""

    dispute_id = models.CharField(max_length=255, unique=True)
    deposit = models.ForeignKey(Deposit, on_delete=models.PROTECT, related_name="disputes")
    # What we froze or took: min(Stripe's amount, the deposit's room); 0 when a second taking
    # found nothing left under the cap (the row still records what Stripe did).
    amount_minor = models.BigIntegerField()
    status = models.CharField(max_length=8, choices=DisputeStatus.choices)
    # Stripe's own status and amount, as last reported.
    stripe_status = models.CharField(max_length=32, blank=True)
    stripe_amount_minor = models.BigIntegerField(default=0)
    # The taking's split (docs/payments.md, "Takings"): from the deposit's own unspent lot,
    # from the sellers' pending proceeds it funded (see SaleReversal), from the buyer's other
    # funds, and the platform's loss. A won dispute gives each part back.
    from_lot_minor = models.BigIntegerField(default=0)
    from_proceeds_minor = models.BigIntegerField(default=0)
    from_buyer_minor = models.BigIntegerField(default=0)
    loss_minor = models.BigIntegerField(default=0)
    freeze_transaction = models.OneToOneField(
        LedgerTransaction, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    close_transaction = models.OneToOneField(
        LedgerTransaction, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_minor__gte=0), name="dispute_amount_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"dispute {self.dispute_id} {self.amount_minor} {self.status}"


class RefundStatus(models.TextChoices):
    REQUESTED = "requested", "Requested; not yet confirmed by Stripe"
    SUCCEEDED = "succeeded", "Refunded to the original payment"
    FAILED = "failed", "Refused by Stripe: funds returned to your balance"


class DepositRefund(models.Model):
    """A refund the user asked for: unspent deposited USD back to the deposit's payment.

    The amount leaves the user's available USD when requested (deposit.refunded_minor counts
    it from then on); a refusal by Stripe puts it back.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="deposit_refunds"
    )
    deposit = models.ForeignKey(Deposit, on_delete=models.PROTECT, related_name="user_refunds")
    amount_minor = models.BigIntegerField()
    status = models.CharField(
        max_length=10, choices=RefundStatus.choices, default=RefundStatus.REQUESTED
    )
    idempotency_key = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    stripe_refund_id = models.CharField(max_length=255, null=True, blank=True, unique=True)  # noqa: DJ001
    attempts = models.PositiveIntegerField(default=0)
    failure_code = models.CharField(max_length=100, blank=True)
    failure_message = models.CharField(max_length=500, blank=True)
    request_transaction = models.OneToOneField(
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
                condition=Q(amount_minor__gt=0), name="depositrefund_amount_positive"
            ),
            models.CheckConstraint(
                condition=~Q(status=RefundStatus.SUCCEEDED) | Q(stripe_refund_id__isnull=False),
                name="depositrefund_succeeded_has_stripe_id",
            ),
            models.CheckConstraint(
                condition=~Q(status=RefundStatus.FAILED) | Q(close_transaction__isnull=False),
                name="depositrefund_failed_has_close_transaction",
            ),
            models.UniqueConstraint(
                fields=["user", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="depositrefund_unique_idempotency_key",
            ),
        ]
        indexes = [models.Index(fields=["user", "-id"], name="depositrefund_user_recent")]

    def __str__(self) -> str:
        return f"refund {self.pk} of deposit {self.deposit_id}: {self.amount_minor} {self.status}"
