"""Funds provenance: every USD cent knows which deposit it came from.

Lots (market.payments.services.lots) say where a user's USD came from; a USD trade records
which of the buyer's lots paid for it (:class:`TradeFunding`), so a seller's proceeds carry
the identity of the deposits that bought them, and a withdrawal records which proceeds lots
it paid out (:class:`WithdrawalFunding`).

A refund made at Stripe or a dispute of a deposit takes back its amount in one database
transaction, in this order (docs/payments.md, "Takings", with the reasons):

1. the deposit's own unspent lot (from the buyer's available USD);
2. the sellers' pending proceeds the deposit funded, oldest trade first, with the platform's
   fee on that part: each such sale is reversed (a refund, a lost dispute) or held as
   disputed (an open dispute), and the seller is told (market.payments.services.sale_notices);
3. proceeds it funded that matured and are still unspent in the seller's balance;
4. proceeds it funded that were paid out: the transferred share is asked back with a Stripe
   transfer reversal (the REVERSALS receivable; market.payments.services.transfer_reversals);
5. the buyer's other funds: their available USD, then their open USD bids (cancelled);
6. whatever is left is the platform's loss, posted to the LOSSES account.

A won (or warning_closed) dispute gives every part back to where it came from: step 5's
parts to the very lots it consumed (:class:`DisputeLotTaking`); that, and the settling of a
lost dispute, is market.payments.services.dispute_outcomes.
"""

from __future__ import annotations

import dataclasses

from django.db import transaction
from django.db.models import F

from market.models import Account, AccountKind, LedgerTransaction, Trade
from market.money import format_minor
from market.payments.exceptions import PaymentsBusy
from market.payments.models import (
    Deposit,
    Dispute,
    DisputeLotTaking,
    FundsLot,
    ProceedsHold,
    SaleReversal,
    TradeFunding,
    TransferReversal,
    WithdrawalFunding,
    WithdrawalStatus,
)
from market.payments.services.balances import (
    USD,
    debit_or_debt_legs,
    lock_buyer_and_sellers,
    usd_system_account,
)
from market.payments.services.debtors import (
    cancel_open_usd_bids,
    lock_problems_of_open_usd_bids,
)
from market.payments.services.lots import consume_lots
from market.payments.services.sale_notices import tell_seller
from market.services.ledger import Leg, record_transaction


@dataclasses.dataclass
class Taking:
    txn: LedgerTransaction
    from_lot: int = 0
    from_proceeds: int = 0
    from_buyer: int = 0
    loss: int = 0
    reversals: list[SaleReversal] = dataclasses.field(default_factory=list)


def _unsettled_fundings(deposit: Deposit) -> list[TradeFunding]:
    """Fundings by the deposit's lot not yet taken back (pending or already released)."""
    return list(
        TradeFunding.objects.filter(lot__deposit=deposit, reversed_minor__lt=F("amount_minor"))
        .select_related("trade")
        .order_by("id")
    )


@dataclasses.dataclass
class _Part:
    """One part of a taking that a seller's sale pays: where from, and how much."""

    funding: TradeFunding
    hold: ProceedsHold
    source: str
    seller_minor: int
    fee_minor: int
    funded_minor: int  # of the funding's price, what this part settles
    withdrawal_funding: WithdrawalFunding | None = None


def _released_parts(
    *,
    funding: TradeFunding,
    hold: ProceedsHold,
    part: int,
    seller_available: int,
) -> list[_Part]:
    """Steps 3 and 4 for one funding whose proceeds matured: the seller's unspent proceeds
    lot (their available USD, at most ``seller_available``), then the withdrawals it paid
    (a transfer reversal of the amount transferred). What the seller spent on a purchase, a
    withdrawal's fee and the platform's fee on the withdrawn part are not taken: they are
    left to the buyer's other funds and then the loss. Precondition: the seller's AVAILABLE
    is locked."""
    trade: Trade = funding.trade
    share = min(
        part * hold.amount_minor // trade.price_minor, hold.amount_minor - hold.reversed_minor
    )
    lot = FundsLot.objects.select_for_update(no_key=True).filter(proceeds_hold=hold).first()
    parts: list[_Part] = []
    if lot is None or share <= 0:
        return parts
    from_available = min(share, lot.remaining_minor, max(seller_available, 0))
    if from_available > 0:
        # The platform's fee on that much of the sale comes back with it.
        fee = (part - share) * from_available // share
        parts.append(
            _Part(
                funding,
                hold,
                SaleReversal.Source.AVAILABLE,
                from_available,
                fee,
                from_available + fee,
            )
        )
        FundsLot.objects.filter(pk=lot.pk).update(
            remaining_minor=F("remaining_minor") - from_available
        )
    left = share - from_available
    paid_out = (
        WithdrawalFunding.objects.select_for_update(of=("self",))
        .filter(
            lot=lot,
            # In flight too: the reversal waits for the transfer (paid: asked of Stripe;
            # refused: withheld from the returned money, market.payments.services.withdrawals).
            withdrawal__status__in=(WithdrawalStatus.PAID, WithdrawalStatus.REQUESTED),
            reversed_minor__lt=F("amount_minor"),
        )
        .select_related("withdrawal")
        .order_by("id")
    )
    for wf in paid_out:
        if left <= 0:
            break
        take = min(wf.amount_minor - wf.reversed_minor, left)
        withdrawal = wf.withdrawal
        # Stripe transferred the withdrawal's net: ask back that share of what was taken.
        asked = take * withdrawal.net_minor // withdrawal.amount_minor
        left -= take
        WithdrawalFunding.objects.filter(pk=wf.pk).update(reversed_minor=F("reversed_minor") + take)
        if asked > 0:
            parts.append(_Part(funding, hold, SaleReversal.Source.TRANSFER, asked, 0, asked, wf))
    return parts


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
    call, id order), then lots and withdrawal fundings. Raises PaymentsBusy if a trade funded
    by the deposit committed between the reading of its fundings and the locking of the
    accounts.
    """
    buyer = deposit.user_id
    fees = usd_system_account(AccountKind.FEES)
    losses = usd_system_account(AccountKind.LOSSES)
    receivable = usd_system_account(AccountKind.REVERSALS)
    problems = lock_problems_of_open_usd_bids(user_id=buyer)
    fundings = _unsettled_fundings(deposit)
    hold_ids = sorted({f.trade_id for f in fundings})
    holds = {
        h.trade_id: h
        for h in ProceedsHold.objects.select_for_update()
        .filter(trade_id__in=hold_ids)
        .order_by("id")
    }
    sellers = sorted({h.user_id for h in holds.values()})
    accounts, locked = lock_buyer_and_sellers(buyer, sellers)
    if {f.pk for f in _unsettled_fundings(deposit)} - {f.pk for f in fundings}:
        raise PaymentsBusy("a trade paid by this deposit is committing; try again")
    lot = FundsLot.objects.select_for_update(no_key=True).filter(deposit=deposit).first()

    # 1. The deposit's own unspent lot.
    from_lot = min(amount_minor, lot.remaining_minor if lot is not None else 0)
    rest = amount_minor - from_lot
    legs: list[Leg] = []
    parts: list[_Part] = []
    seller_available = {
        seller: locked[accounts[(seller, AccountKind.AVAILABLE)].pk].balance_minor
        for seller in sellers
    }
    for funding in fundings:
        if rest <= 0:
            break
        hold = holds.get(funding.trade_id)
        if hold is None:
            continue
        part = min(funding.amount_minor - funding.reversed_minor, rest)
        trade: Trade = funding.trade
        if hold.released_at is None:
            # 2. The seller's pending proceeds.
            seller_part = min(
                part * hold.amount_minor // trade.price_minor,
                hold.amount_minor - hold.reversed_minor,
            )
            found = [
                _Part(
                    funding,
                    hold,
                    SaleReversal.Source.PENDING,
                    seller_part,
                    part - seller_part,
                    part,
                )
            ]
        else:
            # 3-4. Matured proceeds: the seller's available part, then transfers paid out.
            found = _released_parts(
                funding=funding,
                hold=hold,
                part=part,
                seller_available=seller_available[hold.user_id],
            )
        for p in found:
            if p.source == SaleReversal.Source.PENDING and p.seller_minor:
                legs.append((accounts[(hold.user_id, AccountKind.PENDING)], -p.seller_minor))
            elif p.source == SaleReversal.Source.AVAILABLE:
                legs.append((accounts[(hold.user_id, AccountKind.AVAILABLE)], -p.seller_minor))
                seller_available[hold.user_id] -= p.seller_minor
            elif p.source == SaleReversal.Source.TRANSFER:
                legs.append((receivable, -p.seller_minor))
            if p.fee_minor:
                legs.append((fees, -p.fee_minor))
            rest -= p.seller_minor + p.fee_minor
        parts += found
        # The whole part is settled: what none of the steps above found is the buyer's to
        # cover (step 5) or the platform's loss (step 6), never asked of this sale again.
        TradeFunding.objects.filter(pk=funding.pk).update(reversed_minor=F("reversed_minor") + part)
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
    for p in parts:
        if p.source == SaleReversal.Source.PENDING:
            ProceedsHold.objects.filter(pk=p.hold.pk).update(
                reversed_minor=F("reversed_minor") + p.seller_minor
            )
            p.hold.reversed_minor += p.seller_minor
        reversal = SaleReversal.objects.create(
            seller_id=p.hold.user_id,
            trade_id=p.funding.trade_id,
            funding=p.funding,
            proceeds_hold=p.hold,
            deposit=deposit,
            dispute=dispute,
            seller_minor=p.seller_minor,
            fee_minor=p.fee_minor,
            source=p.source,
            status=SaleReversal.Status.REVERSED if final else SaleReversal.Status.DISPUTED,
            reason=reason[:200],
            ledger_transaction=txn,
        )
        if p.withdrawal_funding is not None:
            request_transfer_reversal(reversal=reversal, withdrawal_funding=p.withdrawal_funding)
        tell_seller(reversal, p.funding.trade)
        taking.reversals.append(reversal)

    # 5. The buyer's other funds: what their available USD paid beyond the lot, then their
    # open USD bids (cancelled: the holds repay the debt). 6. The rest is the platform's loss.
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
        consumed = consume_lots(
            user_id=buyer,
            amount_minor=taking.from_buyer,
            exclude=lot.pk if lot is not None else None,
        )
        if dispute is not None:
            # A won dispute gives these back to the lots they came from (never to D's lot:
            # D's card would then be refunded with another payment's money).
            DisputeLotTaking.objects.bulk_create(
                DisputeLotTaking(dispute=dispute, lot_id=lot_id, amount_minor=part)
                for lot_id, part in consumed
            )
    return taking


def request_transfer_reversal(
    *, reversal: SaleReversal, withdrawal_funding: WithdrawalFunding
) -> TransferReversal:
    """Record a transfer reversal the taking posted to REVERSALS and send it after commit."""
    from market.payments.tasks import send_transfer_reversal_task

    record = TransferReversal.objects.create(
        withdrawal_id=withdrawal_funding.withdrawal_id,
        sale_reversal=reversal,
        amount_minor=reversal.seller_minor,
        request_transaction=reversal.ledger_transaction,
    )
    transaction.on_commit(lambda: send_transfer_reversal_task.delay(reversal_id=record.pk))
    return record
