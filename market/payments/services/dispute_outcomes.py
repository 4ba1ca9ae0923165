"""A decided dispute's taking (market.payments.services.provenance): given back or settled.

A won (or warning_closed) dispute gives every part of its taking back to where it came from:
the buyer's part to the deposit's lot and step 5's parts to the very lots it consumed
(:class:`DisputeLotTaking`), the sellers' parts to their pending or available proceeds, the
platform's fee and any loss back (docs/payments.md, "Takings"). A lost dispute makes its
disputed sale reversals final.
"""

from __future__ import annotations

from django.db.models import F

from market.models import Account, AccountKind, LedgerTransaction
from market.payments.models import (
    Dispute,
    DisputeLotTaking,
    FundsLot,
    ProceedsHold,
    SaleReversal,
    TradeFunding,
    TransferReversal,
    TransferReversalStatus,
)
from market.payments.services.balances import USD, lock_buyer_and_sellers, usd_system_account
from market.payments.services.lots import (
    add_proceeds_lot,
    restore_deposit_lot,
    restore_lots,
)
from market.payments.services.sale_notices import tell_seller
from market.services.ledger import Leg, record_transaction


def give_back(*, dispute: Dispute, source: Account, memo: str, idempotency_key: str) -> None:
    """A dispute decided for us (won, warning_closed): each part of its taking goes back to
    where it came from. Precondition: the deposit is locked; ``source`` (DISPUTES) fetched.
    Lock order: holds, user accounts (one call, id order), then transfer reversals (as
    :func:`fail_withdrawal`; docs/payments.md, "Lock order")."""
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
    accounts, locked = lock_buyer_and_sellers(buyer, (h.user_id for h in holds.values()))
    # After the accounts, as fail_withdrawal (withhold_transfer_reversals) takes them: a
    # transfer reversal locked first deadlocked with a refused withdrawal of the same seller.
    transfers = {
        t.sale_reversal_id: t
        for t in TransferReversal.objects.select_for_update()
        .filter(sale_reversal__in=[r.pk for r in reversals])
        .order_by("id")
    }
    legs: list[Leg] = [(source, -dispute.amount_minor)]
    buyer_part = dispute.from_lot_minor + dispute.from_buyer_minor
    if dispute.loss_minor:
        legs.append((losses, dispute.loss_minor))
    to_seller: dict[int, bool] = {}
    for reversal in reversals:
        hold = holds[reversal.proceeds_hold_id]
        refused = reversal.pk in transfers and (
            transfers[reversal.pk].status == TransferReversalStatus.REFUSED
        )
        if refused:
            # Stripe refused to reverse the transfer: the seller kept it and the platform
            # posted a loss. Won, there is no loss any more.
            legs.append((losses, reversal.seller_minor))
            to_seller[reversal.pk] = False
            continue
        # Still pending: back to PENDING (released with the hold); released meanwhile, taken
        # from available proceeds or asked back from a transfer: to the seller's available
        # USD, as withdrawable proceeds (a transfer reversal still in flight completes to
        # clearing; a refusal after this takes it from the seller).
        pending = reversal.source == SaleReversal.Source.PENDING and hold.released_at is None
        where = AccountKind.PENDING if pending else AccountKind.AVAILABLE
        if reversal.seller_minor:
            legs.append((accounts[(hold.user_id, where)], reversal.seller_minor))
        if reversal.fee_minor:
            legs.append((fees, reversal.fee_minor))
        to_seller[reversal.pk] = not pending
    # The buyer's part goes through credit_available_locked so that it repays debt first.
    txn_legs = [*legs, (accounts[(buyer, AccountKind.AVAILABLE)], buyer_part)]
    txn = record_transaction(
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
    # D's own part back to D's lot; step 5's parts back to the lots step 5 consumed. What
    # such a lot cannot take (its deposit was refunded or disputed meanwhile) is D's money
    # again (Stripe gave it back): it goes to D's lot. Unlotted money stays unlotted.
    takings = list(
        DisputeLotTaking.objects.filter(dispute=dispute)
        .order_by("lot_id")
        .values_list("lot_id", "amount_minor")
    )
    to_deposit_lot = dispute.from_lot_minor + sum(amount for _, amount in takings)
    restore_deposit_lot(deposit, to_deposit_lot - restore_lots(takings))
    for reversal in reversals:
        hold = holds[reversal.proceeds_hold_id]
        if reversal.source == SaleReversal.Source.PENDING:
            ProceedsHold.objects.filter(pk=hold.pk).update(
                reversed_minor=F("reversed_minor") - reversal.seller_minor
            )
        TradeFunding.objects.filter(pk=reversal.funding_id).update(
            reversed_minor=F("reversed_minor") - reversal.seller_minor - reversal.fee_minor
        )
        if to_seller[reversal.pk] and reversal.seller_minor:
            if reversal.source == SaleReversal.Source.PENDING:
                add_proceeds_lot(hold, reversal.seller_minor)
            else:
                FundsLot.objects.filter(proceeds_hold=hold).update(
                    remaining_minor=F("remaining_minor") + reversal.seller_minor
                )
        reversal.status = SaleReversal.Status.RESTORED
        reversal.restore_transaction = txn
        reversal.save(update_fields=["status", "restore_transaction"])
        tell_seller(reversal, reversal.trade)


def settle_lost(dispute: Dispute) -> None:
    """A lost dispute: its disputed sale reversals become final (the sellers are told)."""
    reversals = SaleReversal.objects.filter(
        dispute=dispute, status=SaleReversal.Status.DISPUTED
    ).select_related("trade")
    for reversal in reversals.order_by("id"):
        reversal.status = SaleReversal.Status.REVERSED
        reversal.reason = (
            f"a dispute of the buyer's payment (deposit {reversal.deposit_id}) was lost"
        )
        reversal.save(update_fields=["status", "reason"])
        tell_seller(reversal, reversal.trade)
