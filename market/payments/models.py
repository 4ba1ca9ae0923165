"""Real money through Stripe: webhook events, deposits, disputes, connected accounts,
withdrawals and the hold window of USD sale proceeds.

The ledger (market.models.ledger) holds the balances; these rows hold the Stripe side of each
movement and the state machines around it. Every row that moves money points at the ledger
transaction that moved it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from market.models import LedgerTransaction, Trade
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


class FundsLot(models.Model):
    """Where a part of a user's USD came from: one paid deposit, or one matured sale's
    proceeds. ``remaining_minor`` is what is not yet spent (by a trade, a refund, a
    dispute or a withdrawal); spending consumes a user's lots oldest first (FIFO).

    A trade records which lots paid for it (:class:`TradeFunding`, written by the PostgreSQL
    trigger ``payments_fund_trade`` on the engine's trade insert), so the seller's pending
    proceeds carry the identity of the deposits that bought them.
    """

    class Source(models.TextChoices):
        DEPOSIT = "deposit", "Deposit"
        PROCEEDS = "proceeds", "Sale proceeds"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    source = models.CharField(max_length=10, choices=Source.choices)
    deposit = models.OneToOneField(
        Deposit, null=True, blank=True, on_delete=models.PROTECT, related_name="lot"
    )
    proceeds_hold = models.OneToOneField(
        ProceedsHold, null=True, blank=True, on_delete=models.PROTECT, related_name="lot"
    )
    amount_minor = models.BigIntegerField()
    remaining_minor = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(remaining_minor__gte=0, amount_minor__gte=F("remaining_minor")),
                name="fundslot_remaining_within_amount",
            ),
            models.CheckConstraint(
                condition=Q(source="deposit", deposit__isnull=False, proceeds_hold__isnull=True)
                | Q(source="proceeds", deposit__isnull=True, proceeds_hold__isnull=False),
                name="fundslot_one_origin",
            ),
        ]
        indexes = [
            models.Index(
                fields=["user", "id"],
                condition=Q(remaining_minor__gt=0),
                name="fundslot_unspent",
            )
        ]

    def __str__(self) -> str:
        return f"lot {self.pk} ({self.source}) {self.remaining_minor}/{self.amount_minor}"


class TradeFunding(models.Model):
    """``amount_minor`` of a USD trade's price was paid from ``lot`` (the buyer's)."""

    trade = models.ForeignKey(Trade, on_delete=models.PROTECT, related_name="fundings")
    lot = models.ForeignKey(FundsLot, on_delete=models.PROTECT, related_name="fundings")
    amount_minor = models.BigIntegerField()
    # Of amount_minor, what a refund or dispute of the lot's deposit took back.
    reversed_minor = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_minor__gt=0, reversed_minor__gte=0)
                & Q(reversed_minor__lte=F("amount_minor")),
                name="tradefunding_reversed_within_amount",
            ),
        ]
        indexes = [models.Index(fields=["lot", "id"], name="tradefunding_lot")]

    def __str__(self) -> str:
        return f"trade {self.trade_id} funded {self.amount_minor} by lot {self.lot_id}"


class SaleReversal(models.Model):
    """A seller's sale taken back (in part) because the deposit that paid for it was
    refunded or disputed: shown on the seller's account page."""

    class Status(models.TextChoices):
        REVERSED = "reversed", "Reversed: the buyer's payment was taken back"
        DISPUTED = "disputed", "On hold: the buyer's payment is disputed"
        RESTORED = "restored", "Restored: the dispute was decided for us"

    seller = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="sale_reversals"
    )
    trade = models.ForeignKey(Trade, on_delete=models.PROTECT, related_name="reversals")
    funding = models.ForeignKey(TradeFunding, on_delete=models.PROTECT, related_name="+")
    proceeds_hold = models.ForeignKey(ProceedsHold, on_delete=models.PROTECT, related_name="+")
    deposit = models.ForeignKey(Deposit, on_delete=models.PROTECT, related_name="+")
    dispute = models.ForeignKey(
        Dispute, null=True, blank=True, on_delete=models.PROTECT, related_name="sale_reversals"
    )
    # From the seller's pending proceeds, and from the platform's fee on the sale.
    seller_minor = models.BigIntegerField()
    fee_minor = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices)
    reason = models.CharField(max_length=200)
    ledger_transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["seller", "-id"], name="salereversal_seller_recent")]

    def __str__(self) -> str:
        return f"sale {self.trade_id} reversed {self.seller_minor}+{self.fee_minor} {self.status}"


class ReconciliationRun(models.Model):
    """The ledger compared with Stripe's balance transactions (market.payments.services.
    reconciliation); ``differences`` lists every difference in cents."""

    started_at = models.DateTimeField(auto_now_add=True)
    ledger_minor = models.BigIntegerField()
    stripe_minor = models.BigIntegerField()
    differences = models.JSONField(default=list)

    def __str__(self) -> str:
        return f"reconciliation {self.pk}: {self.difference_minor}"

    @property
    def difference_minor(self) -> int:
        return self.stripe_minor - self.ledger_minor
