"""The double-entry ledger: accounts, immutable transactions, postings.

Sign convention: an account's balance is the sum of its postings. User accounts hold what the
platform owes the user (>= 0). System accounts are the other side: the DEMO mint and the Stripe
clearing account go negative as money enters, the fee account goes positive as fees accrue.
Every transaction's postings sum to zero per currency; PostgreSQL enforces it with a deferred
constraint trigger (migration 0002), and postings and transactions can be neither updated nor
deleted.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from market.money import Currency


class AccountKind(models.TextChoices):
    # Per user and currency.
    AVAILABLE = "available", "Available"
    HELD = "held", "Held for open bids and withdrawals"
    PENDING = "pending", "Sale proceeds in their hold window"
    DEBT = "debt", "Owed to the platform (refunds, disputes)"
    # System accounts (no owner).
    FEES = "fees", "Platform fees"
    MINT = "mint", "DEMO mint"
    STRIPE_CLEARING = "stripe_clearing", "Stripe clearing"
    DISPUTES = "disputes", "Frozen by disputes"
    # Money Stripe took back that nobody could be charged for (docs/payments.md, "Takings").
    LOSSES = "losses", "Platform losses"
    # Transfer reversals asked of Stripe and not yet answered: proceeds a seller was paid out
    # that a refund or dispute of the deposit behind them takes back (a receivable, <= 0).
    REVERSALS = "reversals", "Transfer reversals asked of Stripe"


USER_KINDS = (AccountKind.AVAILABLE, AccountKind.HELD, AccountKind.PENDING, AccountKind.DEBT)
SYSTEM_KINDS = (
    AccountKind.FEES,
    AccountKind.MINT,
    AccountKind.STRIPE_CLEARING,
    AccountKind.DISPUTES,
    AccountKind.LOSSES,
    AccountKind.REVERSALS,
)


class Account(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )
    currency = models.CharField(max_length=8, choices=Currency.choices)
    kind = models.CharField(max_length=16, choices=AccountKind.choices)
    # Kept equal to the sum of postings by the ledger service, which updates it under a row
    # lock. System accounts are not updated (it would make them a hot row shared by every
    # trade); their balance is the sum of their postings.
    balance_minor = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "currency", "kind"],
                condition=Q(owner__isnull=False),
                name="account_unique_per_user",
            ),
            models.UniqueConstraint(
                fields=["currency", "kind"],
                condition=Q(owner__isnull=True),
                name="account_unique_system",
            ),
            models.CheckConstraint(
                condition=Q(owner__isnull=True, kind__in=SYSTEM_KINDS)
                | Q(owner__isnull=False, kind__in=USER_KINDS),
                name="account_kind_matches_owner",
            ),
            # The last guard: no user's balance below zero (debt accounts only go down).
            models.CheckConstraint(
                condition=Q(owner__isnull=True)
                | Q(kind=AccountKind.DEBT, balance_minor__lte=0)
                | (~Q(kind=AccountKind.DEBT) & Q(balance_minor__gte=0)),
                name="account_user_balance_sign",
            ),
            models.CheckConstraint(
                condition=Q(currency__in=Currency.values), name="account_currency_known"
            ),
        ]

    def __str__(self) -> str:
        who = self.owner_id or "system"
        return f"{who}/{self.currency}/{self.kind}"


class LedgerTransaction(models.Model):
    class Kind(models.TextChoices):
        DEMO_GRANT = "demo_grant"
        BID_HOLD = "bid_hold"
        BID_RELEASE = "bid_release"
        TRADE = "trade"
        DEPOSIT = "deposit"
        REFUND = "refund"
        DISPUTE = "dispute"
        WITHDRAWAL_HOLD = "withdrawal_hold"
        WITHDRAWAL_PAID = "withdrawal_paid"
        WITHDRAWAL_RELEASE = "withdrawal_release"
        PROCEEDS_RELEASE = "proceeds_release"
        DEBT_SETTLE = "debt_settle"
        TRANSFER_REVERSAL = "transfer_reversal"

    kind = models.CharField(max_length=24, choices=Kind.choices)
    currency = models.CharField(max_length=8, choices=Currency.choices)
    memo = models.CharField(max_length=200, blank=True)
    # Makes money-moving commands idempotent (Stripe event ids, grants, ...).
    idempotency_key = models.CharField(max_length=255, null=True, blank=True, unique=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"txn {self.pk} {self.kind} {self.currency}"


class Posting(models.Model):
    transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, related_name="postings"
    )
    # No index of its own: posting_account_id (account, id) leads with it.
    account = models.ForeignKey(
        Account, on_delete=models.PROTECT, related_name="postings", db_index=False
    )
    # Denormalised from the account so that the database can check currencies never mix.
    currency = models.CharField(max_length=8, choices=Currency.choices)
    amount_minor = models.BigIntegerField()

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(amount_minor=0), name="posting_amount_nonzero"),
        ]
        indexes = [models.Index(fields=["account", "id"], name="posting_account_id")]

    def __str__(self) -> str:
        return f"{self.account} {self.amount_minor:+d}"
