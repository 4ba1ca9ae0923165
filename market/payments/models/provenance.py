"""Payments models: provenance."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from market.models import LedgerTransaction, Trade
from market.payments.models.deposits import Deposit, Dispute
from market.payments.models.payouts import ProceedsHold, Withdrawal


class FundsLot(models.Model):
    """Where a part of a user's USD came from: one paid deposit, or one matured sale's
    proceeds. ``remaining_minor`` is what is not yet spent (by a trade, a refund, a
    dispute or a withdrawal); spending consumes a user's lots oldest first (FIFO).

    A trade records which lots paid for it (:class:`TradeFunding`, written by the PostgreSQL
    trigger ``payments_fund_trade``, function ``engine.fund_trade``, on the engine's trade
    insert), so the seller's pending proceeds carry the identity of the deposits that
    bought them.
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


class DisputeLotTaking(models.Model):
    """Step 5 of a dispute's taking (the buyer's other funds) consumed ``amount_minor`` of
    ``lot``: a won dispute gives exactly that back to that lot."""

    dispute = models.ForeignKey(Dispute, on_delete=models.PROTECT, related_name="lot_takings")
    lot = models.ForeignKey(FundsLot, on_delete=models.PROTECT, related_name="+")
    amount_minor = models.BigIntegerField()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_minor__gt=0), name="disputelottaking_amount_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"dispute {self.dispute_id} took {self.amount_minor} of lot {self.lot_id}"


class SaleReversal(models.Model):
    """A seller's sale taken back (in part) because the deposit that paid for it was
    refunded or disputed: shown on the seller's account page."""

    class Status(models.TextChoices):
        REVERSED = "reversed", "Reversed: the buyer's payment was taken back"
        DISPUTED = "disputed", "On hold: the buyer's payment is disputed"
        RESTORED = "restored", "Restored: the dispute was decided for us"

    class Source(models.TextChoices):
        # Where the seller's part came from (docs/payments.md, "Takings", steps 2-4).
        PENDING = "pending", "from your pending proceeds"
        AVAILABLE = "available", "from your available proceeds"
        TRANSFER = "transfer", "by reversing a transfer already paid out"

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
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.PENDING)
    reason = models.CharField(max_length=200)
    ledger_transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, related_name="+"
    )
    # The won dispute's transaction that gave it back (RESTORED).
    restore_transaction = models.ForeignKey(
        LedgerTransaction, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["seller", "-id"], name="salereversal_seller_recent")]

    def __str__(self) -> str:
        return f"sale {self.trade_id} reversed {self.seller_minor}+{self.fee_minor} {self.status}"


class WithdrawalFunding(models.Model):
    """``amount_minor`` of a withdrawal was paid from ``lot`` (the seller's proceeds lots are
    consumed oldest first when the withdrawal is requested, given back if Stripe refuses)."""

    withdrawal = models.ForeignKey(Withdrawal, on_delete=models.PROTECT, related_name="fundings")
    lot = models.ForeignKey(FundsLot, on_delete=models.PROTECT, related_name="withdrawal_fundings")
    amount_minor = models.BigIntegerField()
    # Of amount_minor, what a refund or dispute of the deposit behind the lot asked back.
    reversed_minor = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_minor__gt=0, reversed_minor__gte=0)
                & Q(reversed_minor__lte=F("amount_minor")),
                name="withdrawalfunding_reversed_within_amount",
            ),
        ]
        indexes = [models.Index(fields=["lot", "id"], name="withdrawalfunding_lot")]

    def __str__(self) -> str:
        return f"withdrawal {self.withdrawal_id} funded {self.amount_minor} by lot {self.lot_id}"


class TransferReversalStatus(models.TextChoices):
    REQUESTED = "requested", "Asked of Stripe; not yet confirmed"
    SUCCEEDED = "succeeded", "Reversed: the money is back on the platform"
    REFUSED = "refused", "Refused by Stripe: recorded as a platform loss"
    # Asked while the withdrawal's transfer was in flight; Stripe then refused the transfer,
    # so the amount was taken from the money the refusal gave back to the seller.
    WITHHELD = "withheld", "Withheld from the refused withdrawal's returned money"


class TransferReversal(models.Model):
    """Proceeds already paid out to a seller, asked back from their connected account with a
    Stripe transfer reversal because the deposit that bought the sale was taken back.

    While REQUESTED the amount sits in the REVERSALS receivable; Stripe's reversal moves it to
    the clearing account, a refusal to LOSSES (docs/payments.md, "Takings")."""

    withdrawal = models.ForeignKey(Withdrawal, on_delete=models.PROTECT, related_name="reversals")
    sale_reversal = models.OneToOneField(
        SaleReversal, on_delete=models.PROTECT, related_name="transfer_reversal"
    )
    amount_minor = models.BigIntegerField()
    status = models.CharField(
        max_length=10,
        choices=TransferReversalStatus.choices,
        default=TransferReversalStatus.REQUESTED,
    )
    stripe_reversal_id = models.CharField(  # noqa: DJ001
        max_length=255, null=True, blank=True, unique=True
    )
    attempts = models.PositiveIntegerField(default=0)
    failure_code = models.CharField(max_length=100, blank=True)
    failure_message = models.CharField(max_length=500, blank=True)
    request_transaction = models.ForeignKey(
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
                condition=Q(amount_minor__gt=0), name="transferreversal_amount_positive"
            ),
            models.CheckConstraint(
                condition=Q(status=TransferReversalStatus.REQUESTED, close_transaction__isnull=True)
                | (
                    ~Q(status=TransferReversalStatus.REQUESTED) & Q(close_transaction__isnull=False)
                ),
                name="transferreversal_closed_iff_close_transaction",
            ),
            models.CheckConstraint(
                condition=~Q(status=TransferReversalStatus.SUCCEEDED)
                | Q(stripe_reversal_id__isnull=False),
                name="transferreversal_succeeded_has_stripe_id",
            ),
        ]

    def __str__(self) -> str:
        return f"transfer reversal {self.pk} of withdrawal {self.withdrawal_id}: {self.status}"


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
