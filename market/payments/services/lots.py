"""Funds lots: where each part of a user's USD came from (docs/payments.md, "Funds provenance").

A paid deposit creates a lot; matured sale proceeds become a lot of the seller's own.
Spending consumes a user's lots oldest first: a USD trade by the trigger
``payments_fund_trade`` (function ``engine.fund_trade``: payments migration 0004, market
0020), a withdrawal here (recording
:class:`WithdrawalFunding` rows), a refund from its own deposit's lot. Every writer of a
user's lots holds that user's AVAILABLE lock.
"""

from __future__ import annotations

from django.db.models import Case, F, When

from market.payments.models import (
    Deposit,
    FundsLot,
    ProceedsHold,
    Withdrawal,
    WithdrawalFunding,
)


def create_deposit_lot(deposit: Deposit) -> FundsLot:
    return FundsLot.objects.create(
        user_id=deposit.user_id,
        source=FundsLot.Source.DEPOSIT,
        deposit=deposit,
        amount_minor=deposit.amount_minor,
        remaining_minor=deposit.amount_minor,
    )


def add_proceeds_lot(hold: ProceedsHold, amount_minor: int) -> None:
    """Matured (or restored after release) proceeds of ``hold`` become the seller's lot."""
    lot = FundsLot.objects.select_for_update(no_key=True).filter(proceeds_hold=hold).first()
    if lot is None:
        FundsLot.objects.create(
            user_id=hold.user_id,
            source=FundsLot.Source.PROCEEDS,
            proceeds_hold=hold,
            amount_minor=amount_minor,
            remaining_minor=amount_minor,
        )
    else:
        FundsLot.objects.filter(pk=lot.pk).update(
            amount_minor=F("amount_minor") + amount_minor,
            remaining_minor=F("remaining_minor") + amount_minor,
        )


def deposit_lot_remaining(deposit: Deposit) -> int:
    """The deposit's unspent part. A deposit credited before lots existed (no lot) keeps the
    earlier rule: its room, bounded by the user's refundable deposit by the caller."""
    lot = FundsLot.objects.filter(deposit=deposit).first()
    if lot is None:
        from market.payments.services.buckets import deposit_room_minor

        return deposit_room_minor(deposit)
    return lot.remaining_minor


def consume_lots(
    *, user_id: int, amount_minor: int, source: str | None = None, exclude: int | None = None
) -> list[tuple[int, int]]:
    """Consume up to ``amount_minor`` of the user's unspent lots, deposit lots before proceeds
    lots and oldest first among each (as the balance split spends the deposit part first, and
    as the trade trigger does); return the parts consumed, ``(lot id, amount)``.
    Precondition: the user's AVAILABLE account is locked."""
    lots = FundsLot.objects.select_for_update(no_key=True).filter(
        user_id=user_id, remaining_minor__gt=0
    )
    if source is not None:
        lots = lots.filter(source=source)
    if exclude is not None:
        lots = lots.exclude(pk=exclude)
    due = amount_minor
    parts: list[tuple[int, int]] = []
    deposit_first = Case(When(source=FundsLot.Source.DEPOSIT, then=0), default=1)
    for lot in lots.order_by(deposit_first, "id"):
        if due <= 0:
            break
        part = min(lot.remaining_minor, due)
        FundsLot.objects.filter(pk=lot.pk).update(remaining_minor=F("remaining_minor") - part)
        parts.append((lot.pk, part))
        due -= part
    return parts


def consume_lots_for_withdrawal(*, withdrawal: Withdrawal) -> None:
    """A withdrawal consumes the seller's proceeds lots oldest first and records which paid
    it (:class:`WithdrawalFunding`), so a later taking can ask a transfer back. Proceeds
    with no lot (a zero hold window, sales before lots) leave unfunded. Precondition: the
    user's AVAILABLE account is locked."""
    parts = consume_lots(
        user_id=withdrawal.user_id,
        amount_minor=withdrawal.amount_minor,
        source=FundsLot.Source.PROCEEDS,
    )
    WithdrawalFunding.objects.bulk_create(
        WithdrawalFunding(withdrawal=withdrawal, lot_id=lot_id, amount_minor=part)
        for lot_id, part in parts
    )


def take_from_proceeds_lot(*, proceeds_hold_id: int, amount_minor: int) -> None:
    """Take ``amount_minor`` back out of the proceeds lot of a hold, as far as it is unspent
    (a reversal closed after a won dispute had put the amount back there). Precondition: the
    seller's AVAILABLE account is locked."""
    lot = (
        FundsLot.objects.select_for_update(no_key=True)
        .filter(proceeds_hold_id=proceeds_hold_id)
        .first()
    )
    if lot is not None and lot.remaining_minor:
        lot.remaining_minor -= min(amount_minor, lot.remaining_minor)
        lot.save(update_fields=["remaining_minor"])


def restore_lots_of_withdrawal(*, withdrawal: Withdrawal) -> None:
    """Stripe refused the withdrawal's transfer: its lots get their parts back."""
    for funding in WithdrawalFunding.objects.filter(withdrawal=withdrawal).order_by("lot_id"):
        FundsLot.objects.filter(pk=funding.lot_id).update(
            remaining_minor=F("remaining_minor") + funding.amount_minor - funding.reversed_minor
        )


def consume_deposit_lot(deposit: Deposit, amount_minor: int) -> None:
    """A refund the user asked for leaves from the deposit's own lot (checked before)."""
    FundsLot.objects.filter(deposit=deposit).update(
        remaining_minor=F("remaining_minor") - amount_minor
    )


def restore_deposit_lot(deposit: Deposit, amount_minor: int) -> None:
    """Give ``amount_minor`` back to the deposit's lot (a refused refund, a won dispute),
    never beyond the deposit's amount."""
    lot = FundsLot.objects.select_for_update(no_key=True).filter(deposit=deposit).first()
    if lot is None or amount_minor <= 0:
        return
    lot.remaining_minor = min(lot.amount_minor, lot.remaining_minor + amount_minor)
    lot.save(update_fields=["remaining_minor"])


def restore_lots(parts: list[tuple[int, int]]) -> int:
    """Give back each ``(lot id, amount)`` a won dispute's step 5 consumed, never beyond the
    lot's amount nor, for a deposit lot, beyond what may still be refunded or disputed of its
    deposit (refunded or disputed meanwhile, that money is gone); return what they took.

    The lots are locked in one query, in id order (FOR NO KEY UPDATE, docs/payments.md "Lock
    order"). Precondition: their owners' AVAILABLE accounts are locked."""
    from market.payments.services.buckets import deposit_room_minor

    lots = {
        lot.pk: lot
        for lot in FundsLot.objects.select_for_update(no_key=True, of=("self",))
        .select_related("deposit")
        .filter(pk__in=sorted({lot_id for lot_id, _ in parts}))
        .order_by("id")
    }
    taken = 0
    for lot_id, amount_minor in parts:
        lot = lots[lot_id]
        room = lot.amount_minor - lot.remaining_minor
        if lot.deposit is not None:
            room = min(room, deposit_room_minor(lot.deposit) - lot.remaining_minor)
        back = max(min(amount_minor, room), 0)
        if back:
            lot.remaining_minor += back
            lot.save(update_fields=["remaining_minor"])
        taken += back
    return taken
