"""Reads of the payments app: USD balances, history, deposits, withdrawals."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet, Sum

from market.models import Account, AccountKind, Posting
from market.money import Currency
from market.payments.models import (
    ConnectedAccount,
    Deposit,
    ProceedsHold,
    Withdrawal,
)
from market.payments.stripe_client import usd_enabled


@dataclasses.dataclass(frozen=True, slots=True)
class UsdSummary:
    is_enabled: bool
    available_minor: int
    held_minor: int
    pending_minor: int
    debt_minor: int  # <= 0: what the user owes
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


def get_usd_summary(*, user: AbstractBaseUser) -> UsdSummary:
    balances = dict(
        Account.objects.filter(owner_id=user.pk, currency=Currency.USD).values_list(
            "kind", "balance_minor"
        )
    )
    next_hold = (
        ProceedsHold.objects.filter(user_id=user.pk, released_at__isnull=True)
        .order_by("available_at")
        .values_list("available_at", flat=True)
        .first()
    )
    return UsdSummary(
        is_enabled=usd_enabled(),
        available_minor=balances.get(AccountKind.AVAILABLE, 0),
        held_minor=balances.get(AccountKind.HELD, 0),
        pending_minor=balances.get(AccountKind.PENDING, 0),
        debt_minor=balances.get(AccountKind.DEBT, 0),
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


def get_pending_proceeds_minor(*, user: AbstractBaseUser) -> int:
    total = ProceedsHold.objects.filter(user_id=user.pk, released_at__isnull=True).aggregate(
        s=Sum("amount_minor")
    )["s"]
    return int(total or 0)
