"""Funds provenance: every USD cent knows which deposit it came from.

A paid deposit creates a lot (:class:`FundsLot`); spending consumes a user's lots oldest
first. A USD trade records which of the buyer's lots paid for it (:class:`TradeFunding`, by
the trigger ``payments_fund_trade`` on the engine's trade insert, migration payments 0004),
so the seller's pending proceeds carry the identity of the deposits that bought them; when
the proceeds mature they become a lot of the seller's own.

A refund made at Stripe or a dispute of a deposit takes back its amount in one database
transaction, in this order (docs/payments.md, "Takings"):

1. the deposit's own unspent lot (from the buyer's available USD);
2. the sellers' pending proceeds the deposit funded, oldest trade first: each such sale is
   reversed (a refund, a lost dispute) or held as disputed (an open dispute), the platform's
   fee on that part comes back too, and the seller gets an activity event;
3. the buyer's other funds: their available USD, then their open USD bids (cancelled);
4. whatever is left is the platform's loss, posted to the LOSSES account.

A won (or warning_closed) dispute gives every part back to where it came from.
"""

from __future__ import annotations

import dataclasses

from django.db.models import F, Sum

from market.models import Account, AccountKind, LedgerTransaction, Trade
from market.money import format_minor
from market.payments.exceptions import PaymentsBusy
from market.payments.models import (
    Deposit,
    Dispute,
    FundsLot,
    ProceedsHold,
    SaleReversal,
    TradeFunding,
)
from market.payments.services.balances import (
    USD,
    debit_or_debt_legs,
    usd_system_account,
)
from market.payments.services.debtors import (
    cancel_open_usd_bids,
    lock_problems_of_open_usd_bids,
)
from market.services.ledger import Leg, get_user_accounts, lock_accounts, record_transaction


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
    lot = FundsLot.objects.select_for_update().filter(proceeds_hold=hold).first()
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
) -> int:
    """Consume up to ``amount_minor`` of the user's unspent lots, oldest first; return how
    much was consumed. Precondition: the user's AVAILABLE account is locked."""
    lots = FundsLot.objects.select_for_update().filter(user_id=user_id, remaining_minor__gt=0)
    if source is not None:
        lots = lots.filter(source=source)
    if exclude is not None:
        lots = lots.exclude(pk=exclude)
    due = amount_minor
    for lot in lots.order_by("id"):
        if due <= 0:
            break
        part = min(lot.remaining_minor, due)
        FundsLot.objects.filter(pk=lot.pk).update(remaining_minor=F("remaining_minor") - part)
        due -= part
    return amount_minor - due


def consume_deposit_lot(deposit: Deposit, amount_minor: int) -> None:
    """A refund the user asked for leaves from the deposit's own lot (checked before)."""
    FundsLot.objects.filter(deposit=deposit).update(
        remaining_minor=F("remaining_minor") - amount_minor
    )


def restore_deposit_lot(deposit: Deposit, amount_minor: int) -> None:
    """Give ``amount_minor`` back to the deposit's lot (a refused refund, a won dispute),
    never beyond the deposit's amount."""
    lot = FundsLot.objects.select_for_update().filter(deposit=deposit).first()
    if lot is None or amount_minor <= 0:
        return
    lot.remaining_minor = min(lot.amount_minor, lot.remaining_minor + amount_minor)
    lot.save(update_fields=["remaining_minor"])


@dataclasses.dataclass
class Taking:
    txn: LedgerTransaction
    from_lot: int = 0
    from_proceeds: int = 0
    from_buyer: int = 0
    loss: int = 0
    reversals: list[SaleReversal] = dataclasses.field(default_factory=list)


def _open_fundings(deposit: Deposit) -> list[TradeFunding]:
    """Fundings by the deposit's lot whose sale's proceeds are still pending."""
    return list(
        TradeFunding.objects.filter(
            lot__deposit=deposit,
            reversed_minor__lt=F("amount_minor"),
            trade__proceeds_hold__released_at__isnull=True,
        )
        .select_related("trade")
        .order_by("id")
    )


def take_back(
    *,
    deposit: Deposit,
    amount_minor: int,
    to: Account,
    kind: LedgerTransaction.Kind,
    memo: str,
    idempotency_key: str | None,
    dispute: Dispute | None = None,
    final: bool = True,
    reason: str,
) -> Taking:
    """Take ``amount_minor`` of ``deposit`` back to ``to`` (the clearing account for a refund,
    DISPUTES for a dispute), in the order of the module docstring.

    Precondition: inside ``transaction.atomic`` with ``deposit`` locked; ``to`` fetched before
    this call. Lock order: the deposit, system accounts, the problems of the buyer's open USD
    bids, the proceeds holds the deposit funded (id order), every user account involved (one
    call, id order), then lots. Raises PaymentsBusy if a trade funded by the deposit
    committed between the reading of its fundings and the locking of the accounts.
    """
    buyer = deposit.user_id
    fees = usd_system_account(AccountKind.FEES)
    losses = usd_system_account(AccountKind.LOSSES)
    problems = lock_problems_of_open_usd_bids(user_id=buyer)
    fundings = _open_fundings(deposit)
    hold_ids = sorted({f.trade_id for f in fundings})
    holds = {
        h.trade_id: h
        for h in ProceedsHold.objects.select_for_update()
        .filter(trade_id__in=hold_ids)
        .order_by("id")
    }
    sellers = sorted({h.user_id for h in holds.values()})
    keys = [(buyer, AccountKind.AVAILABLE), (buyer, AccountKind.DEBT)]
    keys += [(seller, AccountKind.PENDING) for seller in sellers]
    accounts = get_user_accounts(keys=keys, currency=USD)
    locked = lock_accounts(accounts.values())
    if {f.pk for f in _open_fundings(deposit)} - {f.pk for f in fundings}:
        raise PaymentsBusy("a trade paid by this deposit is committing; try again")
    lot = FundsLot.objects.select_for_update().filter(deposit=deposit).first()

    from_lot = min(amount_minor, lot.remaining_minor if lot is not None else 0)
    rest = amount_minor - from_lot
    legs: list[Leg] = []
    planned: list[tuple[TradeFunding, ProceedsHold, int, int]] = []
    for funding in fundings:
        if rest <= 0:
            break
        hold = holds.get(funding.trade_id)
        if hold is None or hold.released_at is not None:
            continue
        part = min(funding.amount_minor - funding.reversed_minor, rest)
        trade: Trade = funding.trade
        seller_part = min(
            part * hold.amount_minor // trade.price_minor, hold.amount_minor - hold.reversed_minor
        )
        fee_part = part - seller_part
        if seller_part:
            legs.append((accounts[(hold.user_id, AccountKind.PENDING)], -seller_part))
        if fee_part:
            legs.append((fees, -fee_part))
        planned.append((funding, hold, seller_part, fee_part))
        rest -= part
    from_proceeds = amount_minor - from_lot - rest
    buyer_accounts = {
        AccountKind.AVAILABLE: accounts[(buyer, AccountKind.AVAILABLE)],
        AccountKind.DEBT: accounts[(buyer, AccountKind.DEBT)],
    }
    buyer_due = from_lot + rest
    if buyer_due:
        legs += debit_or_debt_legs(accounts=buyer_accounts, locked=locked, amount_minor=buyer_due)
    txn = record_transaction(
        kind=kind,
        currency=USD,
        legs=[*legs, (to, amount_minor)],
        locked=locked,
        memo=memo,
        idempotency_key=idempotency_key,
    )
    if lot is not None and from_lot:
        FundsLot.objects.filter(pk=lot.pk).update(remaining_minor=F("remaining_minor") - from_lot)

    taking = Taking(txn=txn, from_lot=from_lot, from_proceeds=from_proceeds)
    for funding, hold, seller_part, fee_part in planned:
        TradeFunding.objects.filter(pk=funding.pk).update(
            reversed_minor=F("reversed_minor") + seller_part + fee_part
        )
        ProceedsHold.objects.filter(pk=hold.pk).update(
            reversed_minor=F("reversed_minor") + seller_part
        )
        hold.reversed_minor += seller_part
        reversal = SaleReversal.objects.create(
            seller_id=hold.user_id,
            trade_id=funding.trade_id,
            funding=funding,
            proceeds_hold=hold,
            deposit=deposit,
            dispute=dispute,
            seller_minor=seller_part,
            fee_minor=fee_part,
            status=SaleReversal.Status.REVERSED if final else SaleReversal.Status.DISPUTED,
            reason=reason[:200],
            ledger_transaction=txn,
        )
        _tell_seller(reversal, funding.trade)
        taking.reversals.append(reversal)

    # 3. The buyer's other funds: what their available USD paid beyond the lot, then their
    # open USD bids (cancelled: the holds repay the debt). 4. The rest is the platform's loss.
    debt = buyer_accounts[AccountKind.DEBT]
    new_debt = -sum(amount for account, amount in legs if account.pk == debt.pk)
    if new_debt > 0:
        cancel_open_usd_bids(user_id=buyer, locked_problem_ids=problems)
        debt_now = type(debt).objects.get(pk=debt.pk).balance_minor
        locked[debt.pk].balance_minor = debt_now
        loss = min(-debt_now, new_debt)
        if loss > 0:
            record_transaction(
                kind=kind,
                currency=USD,
                legs=[(debt, loss), (losses, -loss)],
                locked=locked,
                memo=f"{memo}: {format_minor(loss, USD)} could not be taken back (loss)",
            )
        taking.loss = max(loss, 0)
    taking.from_buyer = rest - taking.loss
    if taking.from_buyer > 0:
        consume_lots(
            user_id=buyer,
            amount_minor=taking.from_buyer,
            exclude=lot.pk if lot is not None else None,
        )
    return taking


def give_back(*, dispute: Dispute, source: Account, memo: str, idempotency_key: str) -> None:
    """A dispute decided for us (won, warning_closed): each part of its taking goes back to
    where it came from. Precondition: the deposit is locked; ``source`` (DISPUTES) fetched."""
    deposit = dispute.deposit
    buyer = deposit.user_id
    fees = usd_system_account(AccountKind.FEES)
    losses = usd_system_account(AccountKind.LOSSES)
    reversals = list(
        SaleReversal.objects.filter(dispute=dispute, status=SaleReversal.Status.DISPUTED).order_by(
            "id"
        )
    )
    holds = {
        h.pk: h
        for h in ProceedsHold.objects.select_for_update()
        .filter(pk__in=sorted({r.proceeds_hold_id for r in reversals}))
        .order_by("id")
    }
    sellers = sorted({h.user_id for h in holds.values()})
    keys = [(buyer, AccountKind.AVAILABLE), (buyer, AccountKind.DEBT)]
    for seller in sellers:
        keys += [(seller, AccountKind.PENDING), (seller, AccountKind.AVAILABLE)]
    accounts = get_user_accounts(keys=keys, currency=USD)
    locked = lock_accounts(accounts.values())
    legs: list[Leg] = [(source, -dispute.amount_minor)]
    buyer_part = dispute.from_lot_minor + dispute.from_buyer_minor
    if dispute.loss_minor:
        legs.append((losses, dispute.loss_minor))
    for reversal in reversals:
        hold = holds[reversal.proceeds_hold_id]
        # Still pending: back to PENDING (released with the hold); released meanwhile: to
        # the seller's available USD, as a lot of the sale's proceeds.
        where = AccountKind.PENDING if hold.released_at is None else AccountKind.AVAILABLE
        if reversal.seller_minor:
            legs.append((accounts[(hold.user_id, where)], reversal.seller_minor))
        if reversal.fee_minor:
            legs.append((fees, reversal.fee_minor))
    # The buyer's part goes through credit_available_locked so that it repays debt first.
    txn_legs = [*legs, (accounts[(buyer, AccountKind.AVAILABLE)], buyer_part)]
    record_transaction(
        kind=LedgerTransaction.Kind.DISPUTE,
        currency=USD,
        legs=txn_legs,
        locked=locked,
        memo=memo,
        idempotency_key=idempotency_key,
    )
    buyer_accounts = {
        AccountKind.AVAILABLE: accounts[(buyer, AccountKind.AVAILABLE)],
        AccountKind.DEBT: accounts[(buyer, AccountKind.DEBT)],
    }
    from market.payments.services.balances import settle_debt_locked

    settle_debt_locked(user_id=buyer, accounts=buyer_accounts, locked=locked)
    restore_deposit_lot(deposit, buyer_part)
    for reversal in reversals:
        hold = holds[reversal.proceeds_hold_id]
        ProceedsHold.objects.filter(pk=hold.pk).update(
            reversed_minor=F("reversed_minor") - reversal.seller_minor
        )
        TradeFunding.objects.filter(pk=reversal.funding_id).update(
            reversed_minor=F("reversed_minor") - reversal.seller_minor - reversal.fee_minor
        )
        if hold.released_at is not None and reversal.seller_minor:
            add_proceeds_lot(hold, reversal.seller_minor)
        reversal.status = SaleReversal.Status.RESTORED
        reversal.save(update_fields=["status"])


def settle_lost(dispute: Dispute) -> None:
    """A lost dispute: its disputed sale reversals become final."""
    SaleReversal.objects.filter(dispute=dispute, status=SaleReversal.Status.DISPUTED).update(
        status=SaleReversal.Status.REVERSED
    )


def _tell_seller(reversal: SaleReversal, trade: Trade) -> None:
    """The seller's activity event, in the taking's transaction."""
    from activity.models import Event

    amount = format_minor(reversal.seller_minor, USD)
    disputed = reversal.status == SaleReversal.Status.DISPUTED
    Event.objects.bulk_create(
        [
            Event(
                user_id=reversal.seller_id,
                kind="sale.reversed",
                key=f"sale-reversal:{reversal.pk}",
                payload={
                    "trade_id": trade.pk,
                    "problem_id": trade.problem_id,
                    "solution_id": trade.solution_id,
                    "price_minor": trade.price_minor,
                    "currency": trade.currency,
                    "reversed_minor": reversal.seller_minor,
                    "status": reversal.status,
                    "message": (
                        f"{amount} of your sale (trade {trade.pk}) is "
                        + ("on hold: the buyer's payment is disputed." if disputed else "")
                        + ("" if disputed else "reversed: the buyer's payment was refunded.")
                    ),
                },
            )
        ],
        ignore_conflicts=True,
    )


def lot_summary(user_id: int) -> dict[str, int]:
    rows = (
        FundsLot.objects.filter(user_id=user_id)
        .values("source")
        .annotate(s=Sum("remaining_minor"))
        .order_by()
    )
    return {row["source"]: int(row["s"] or 0) for row in rows}
