"""The hold window of USD sale proceeds (room for disputes before a seller can withdraw).

market.services.orders passes :func:`proceeds_account_kind` (the account a seller's proceeds
go to) and :func:`proceeds_hold_window` to the engine, which writes each trade's hold row in the
trade's own transaction. Only USD is
held; DEMO proceeds stay immediately available.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from market.models import AccountKind, LedgerTransaction, Trade
from market.money import Currency
from market.payments.models import ProceedsHold
from market.payments.services.balances import credit_available_locked, lock_usd_accounts

logger = logging.getLogger(__name__)


def _is_held(currency: str) -> bool:
    return currency == Currency.USD and settings.PROCEEDS_HOLD_WINDOW_S > 0


def proceeds_account_kind(currency: str) -> AccountKind:
    """Where a seller's proceeds in ``currency`` are credited: PENDING for held USD."""
    return AccountKind.PENDING if _is_held(currency) else AccountKind.AVAILABLE


def proceeds_hold_window(currency: str) -> timedelta | None:
    """How long the proceeds of a sale in ``currency`` wait before release (None: not held).

    The matching engine's SQL function takes this window and writes each trade's hold row,
    available at the trade's instant plus the window (market migration 0005); the
    development engine calls :func:`hold_trade_proceeds`.
    """
    if not _is_held(currency):
        return None
    return timedelta(seconds=settings.PROCEEDS_HOLD_WINDOW_S)


def hold_trade_proceeds(*, trade: Trade) -> ProceedsHold | None:
    """Record when the proceeds of ``trade`` become available.

    Precondition: called in the trade's transaction, after the trade credited
    ``price - fee`` to the seller's :func:`proceeds_account_kind` account.
    """
    amount = trade.price_minor - trade.fee_minor
    window = proceeds_hold_window(trade.currency)
    if window is None or amount <= 0:
        return None
    return ProceedsHold.objects.create(
        user_id=trade.seller_id,
        trade=trade,
        amount_minor=amount,
        currency=trade.currency,
        available_at=timezone.now() + window,
    )


def release_matured_proceeds(*, now: datetime | None = None, limit: int = 500) -> int:
    """Move matured proceeds from PENDING to AVAILABLE (repaying debt first); return how many.

    Each hold is released in its own transaction, claimed with SKIP LOCKED so that two runs
    never release the same hold twice and never wait on each other.
    """
    # Imported here: the engine (market.services.orders) imports this module, and the payments
    # models import the market's; kept out of the engine's import path.
    from market.payments.services.lots import add_proceeds_lot

    now = now or timezone.now()
    due = list(
        ProceedsHold.objects.filter(
            released_at__isnull=True,
            available_at__lte=now,
            # A sale reversed in full (its buyer's payment was taken back) releases nothing.
            reversed_minor__lt=F("amount_minor"),
        )
        .order_by("available_at", "id")
        .values_list("id", flat=True)[:limit]
    )
    released = 0
    for hold_id in due:
        with transaction.atomic():
            hold = (
                ProceedsHold.objects.select_for_update(skip_locked=True)
                .filter(pk=hold_id, released_at__isnull=True)
                .first()
            )
            if hold is None or hold.reversed_minor >= hold.amount_minor:
                continue
            amount = hold.amount_minor - hold.reversed_minor
            accounts, locked = lock_usd_accounts(
                hold.user_id, AccountKind.AVAILABLE, AccountKind.PENDING, AccountKind.DEBT
            )
            txn = credit_available_locked(
                user_id=hold.user_id,
                kind=LedgerTransaction.Kind.PROCEEDS_RELEASE,
                source=accounts[AccountKind.PENDING],
                amount_minor=amount,
                accounts=accounts,
                locked=locked,
                memo=f"proceeds of trade {hold.trade_id} available",
                idempotency_key=f"proceeds-release-{hold.pk}",
            )
            add_proceeds_lot(hold, amount)
            hold.release_transaction = txn
            hold.released_at = now
            hold.save(update_fields=["release_transaction", "released_at"])
            released += 1
    if released:
        logger.info("released %d matured USD proceeds", released)
    return released
