"""Reads of the payments app: USD balances, history, deposits, withdrawals."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from market.models import Account, AccountKind, Posting
from market.money import Currency
from market.payments.models import (
    ConnectedAccount,
    Deposit,
    DepositRefund,
    DepositStatus,
    ProceedsHold,
    ReconciliationRun,
    SaleReversal,
    Withdrawal,
)
from market.payments.services.buckets import compute_usd_buckets, deposit_room_minor
from market.payments.stripe_client import usd_enabled


@dataclasses.dataclass(frozen=True, slots=True)
class UsdBalances:
    available_minor: int
    refundable_minor: int  # part of available: unspent deposits, back only as a refund
    withdrawable_minor: int  # part of available: matured sale proceeds, out by transfer
    held_minor: int
    pending_minor: int
    debt_minor: int  # <= 0: what the user owes


@dataclasses.dataclass(frozen=True, slots=True)
class UsdSummary:
    is_enabled: bool
    available_minor: int
    refundable_minor: int
    withdrawable_minor: int
    held_minor: int
    pending_minor: int
    debt_minor: int
    next_release_at: datetime | None
    connected_account: ConnectedAccount | None
    payout_min_minor: int
    payout_fee_fixed_minor: int
    payout_fee_bps: int
    deposit_min_minor: int
    deposit_max_minor: int
    proceeds_hold_window_s: int

    @property
    def can_withdraw(self) -> bool:
        account = self.connected_account
        return self.is_enabled and account is not None and account.payouts_enabled


def get_usd_balances(*, user: AbstractBaseUser) -> UsdBalances:
    """The user's USD balances and the split of available into refundable and withdrawable
    (the earnings page's figures; the account page's summary adds the rest)."""
    accounts = {a.kind: a for a in Account.objects.filter(owner_id=user.pk, currency=Currency.USD)}
    balances = {kind: a.balance_minor for kind, a in accounts.items()}
    available = accounts.get(AccountKind.AVAILABLE)
    refundable = withdrawable = 0
    if available is not None:
        buckets = compute_usd_buckets(user_id=user.pk, available=available)
        refundable, withdrawable = buckets.refundable_minor, buckets.withdrawable_minor
    return UsdBalances(
        available_minor=balances.get(AccountKind.AVAILABLE, 0),
        refundable_minor=refundable,
        withdrawable_minor=withdrawable,
        held_minor=balances.get(AccountKind.HELD, 0),
        pending_minor=balances.get(AccountKind.PENDING, 0),
        debt_minor=balances.get(AccountKind.DEBT, 0),
    )


def get_usd_summary(*, user: AbstractBaseUser) -> UsdSummary:
    balances = get_usd_balances(user=user)
    next_hold = (
        ProceedsHold.objects.filter(user_id=user.pk, released_at__isnull=True)
        .order_by("available_at")
        .values_list("available_at", flat=True)
        .first()
    )
    return UsdSummary(
        is_enabled=usd_enabled(),
        available_minor=balances.available_minor,
        refundable_minor=balances.refundable_minor,
        withdrawable_minor=balances.withdrawable_minor,
        held_minor=balances.held_minor,
        pending_minor=balances.pending_minor,
        debt_minor=balances.debt_minor,
        next_release_at=next_hold,
        connected_account=ConnectedAccount.objects.filter(user_id=user.pk).first(),
        payout_min_minor=settings.PAYOUT_MIN_MINOR,
        payout_fee_fixed_minor=settings.PAYOUT_FEE_FIXED_MINOR,
        payout_fee_bps=settings.PAYOUT_FEE_BPS,
        deposit_min_minor=settings.DEPOSIT_MIN_MINOR,
        deposit_max_minor=settings.DEPOSIT_MAX_MINOR,
        proceeds_hold_window_s=settings.PROCEEDS_HOLD_WINDOW_S,
    )


def list_usd_postings(
    *, user: AbstractBaseUser, before_id: int | None = None, limit: int = 50
) -> list[Posting]:
    """The user's USD ledger postings, newest first (keyset: ``before_id``)."""
    qs = (
        Posting.objects.filter(account__owner_id=user.pk, currency=Currency.USD)
        .select_related("transaction", "account")
        .order_by("-id")
    )
    if before_id is not None:
        qs = qs.filter(id__lt=before_id)
    return list(qs[: max(1, min(limit, 200))])


def list_deposits(*, user: AbstractBaseUser, limit: int = 20) -> QuerySet[Deposit]:
    return Deposit.objects.filter(user_id=user.pk).order_by("-id")[:limit]


def list_withdrawals(*, user: AbstractBaseUser, limit: int = 20) -> QuerySet[Withdrawal]:
    return Withdrawal.objects.filter(user_id=user.pk).order_by("-id")[:limit]


def list_deposit_refunds(*, user: AbstractBaseUser, limit: int = 20) -> QuerySet[DepositRefund]:
    return DepositRefund.objects.filter(user_id=user.pk).order_by("-id")[:limit]


def list_refundable_deposits(
    *, user: AbstractBaseUser, refundable_minor: int, limit: int = 10
) -> list[tuple[Deposit, int]]:
    """The user's paid deposits that can still be refunded, newest first, each with what can
    be refunded of it now (its own room and unspent lot, at most the user's refundable
    deposit)."""
    from market.payments.services.lots import deposit_lot_remaining

    if refundable_minor <= 0:
        return []
    found = []
    for deposit in Deposit.objects.filter(user_id=user.pk, status=DepositStatus.PAID).order_by(
        "-id"
    )[:50]:
        # Only the deposit's own unspent lot goes back to its payment (issue 27, M3).
        room = min(deposit_room_minor(deposit), refundable_minor, deposit_lot_remaining(deposit))
        if room > 0:
            found.append((deposit, room))
        if len(found) == limit:
            break
    return found


def list_sale_reversals(*, user: AbstractBaseUser, limit: int = 10) -> list[SaleReversal]:
    """The seller's sales taken back (or held) because the buyer's payment was refunded or
    disputed, newest first."""
    return list(
        SaleReversal.objects.filter(seller_id=user.pk)
        .select_related("trade__problem")
        .order_by("-id")[:limit]
    )


def latest_reconciliation() -> ReconciliationRun | None:
    return ReconciliationRun.objects.order_by("-id").first()


@dataclasses.dataclass(frozen=True, slots=True)
class Sale:
    """One USD sale of the seller's, with what became of its proceeds."""

    trade_id: int
    problem_title: str
    sold_at: datetime
    price_minor: int
    proceeds_minor: int
    reversed_minor: int
    available_at: datetime | None
    released_at: datetime | None
    reversals: list[SaleReversal]


def list_usd_sales(*, user: AbstractBaseUser, limit: int = 50) -> list[Sale]:
    """The seller's USD sales, newest first, each with its hold and its reversals."""
    from market.models import Trade

    trades = list(
        Trade.objects.filter(seller_id=user.pk, currency=Currency.USD)
        .select_related("problem", "proceeds_hold")
        .order_by("-id")[:limit]
    )
    reversals: dict[int, list[SaleReversal]] = {}
    for reversal in SaleReversal.objects.filter(
        seller_id=user.pk, trade_id__in=[t.pk for t in trades]
    ).order_by("id"):
        reversals.setdefault(reversal.trade_id, []).append(reversal)
    sales = []
    for trade in trades:
        hold = getattr(trade, "proceeds_hold", None)
        taken = [r for r in reversals.get(trade.pk, []) if r.status != SaleReversal.Status.RESTORED]
        sales.append(
            Sale(
                trade_id=trade.pk,
                problem_title=trade.problem.title,
                sold_at=trade.created_at,
                price_minor=trade.price_minor,
                proceeds_minor=trade.price_minor - trade.fee_minor,
                reversed_minor=sum(r.seller_minor for r in taken),
                available_at=hold.available_at if hold is not None else None,
                released_at=hold.released_at if hold is not None else None,
                reversals=reversals.get(trade.pk, []),
            )
        )
    return sales
