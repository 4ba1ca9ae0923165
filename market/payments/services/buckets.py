"""The two parts of a user's available USD: refundable deposit and withdrawable proceeds.

Rule (docs/payments.md, "Refundable deposit, withdrawable proceeds"): deposited money leaves
the platform only as a refund to the payment it came from; only sale proceeds, once out of
their hold window, leave by Connect transfer. Spending (bids, refunds, disputes, debt
repayment) draws on the **deposit first**; proceeds are touched only when the deposit part
is exhausted.

The split is not a second balance that every writer must keep in step: it is computed from
the user's own AVAILABLE postings, in order, so the matching engine (which only knows
AVAILABLE) needs no change. Walking the postings:

- matured proceeds (``proceeds_release``) and a seller's immediately available trade
  proceeds add to the withdrawable part;
- a withdrawal hold takes from it, a refused withdrawal gives it back;
- any other debit lowers it only as far as the balance falls below it (deposit first);
- any other credit (a deposit, a released bid, a won dispute, a refused refund, and on
  ledgers written before market migration 0006 a taker's price improvement) goes to the
  deposit part. (A bid's purchase paid straight from AVAILABLE is a debit like any other.)

Money released from a bid cannot say which part paid for it, so it returns to the deposit
part; what the deposit part holds beyond what the user's deposits could still refund
(paid amounts less refunds and open or lost disputes) cannot have come from deposits, and
counts as withdrawable. Both rules only ever err towards "refundable", never towards paying
deposited money out by transfer.
"""

from __future__ import annotations

import dataclasses

from django.db.models import Q, Sum

from market.models import Account, LedgerTransaction, Posting, Trade
from market.payments.models import (
    Deposit,
    DepositStatus,
    Dispute,
    DisputeStatus,
    SaleReversal,
    TransferReversal,
    TransferReversalStatus,
)

_Kind = LedgerTransaction.Kind
_TO_WITHDRAWABLE = (_Kind.PROCEEDS_RELEASE, _Kind.WITHDRAWAL_RELEASE)


@dataclasses.dataclass(frozen=True, slots=True)
class UsdBuckets:
    available_minor: int
    refundable_minor: int  # unspent deposits: back only as a refund to the payment
    withdrawable_minor: int  # matured sale proceeds: out by Connect transfer


def deposit_room_minor(deposit: Deposit) -> int:
    """What may still be refunded or disputed of a paid deposit (refunds and open or lost
    disputes together never exceed its amount)."""
    if deposit.status != DepositStatus.PAID:
        return 0
    taken = (
        Dispute.objects.filter(
            deposit_id=deposit.pk, status__in=(DisputeStatus.OPEN, DisputeStatus.LOST)
        ).aggregate(s=Sum("amount_minor"))["s"]
        or 0
    )
    return max(deposit.amount_minor - deposit.refunded_minor - int(taken), 0)


def _deposits_room_minor(user_id: int) -> int:
    paid = Deposit.objects.filter(user_id=user_id, status=DepositStatus.PAID)
    total = paid.aggregate(s=Sum("amount_minor"))["s"] or 0
    refunded = paid.aggregate(s=Sum("refunded_minor"))["s"] or 0
    disputed = (
        Dispute.objects.filter(
            deposit__in=paid, status__in=(DisputeStatus.OPEN, DisputeStatus.LOST)
        ).aggregate(s=Sum("amount_minor"))["s"]
        or 0
    )
    return max(int(total) - int(refunded) - int(disputed), 0)


def _walk_withdrawable(user_id: int, available: Account) -> tuple[int, int]:
    """(balance, withdrawable part) from the user's USD AVAILABLE postings in order.

    Postings to one account are written under its row lock, so their ids follow commit
    order; a caller holding that lock sees them all.
    """
    rows = list(
        Posting.objects.filter(account_id=available.pk)
        .order_by("id")
        .values_list("amount_minor", "transaction_id", "transaction__kind")
    )
    # A seller's trade proceeds credited straight to AVAILABLE (no hold window) are
    # proceeds; a buyer's price improvement on a trade is not.
    sold = set(
        Trade.objects.filter(
            seller_id=user_id,
            ledger_transaction_id__in=[t for _, t, k in rows if k == _Kind.TRADE],
        ).values_list("ledger_transaction_id", flat=True)
    )
    # A seller's matured proceeds taken back (the deposit behind the sale was refunded or
    # disputed) leave the withdrawable part; given back by a won dispute, they return to it.
    taken_back, given_back = _proceeds_taken_and_given_back(user_id, rows)
    balance = withdrawable = 0
    for amount, txn_id, kind in rows:
        balance += amount
        if amount > 0 and (kind in _TO_WITHDRAWABLE or txn_id in sold or txn_id in given_back):
            withdrawable += amount
        elif kind == _Kind.WITHDRAWAL_HOLD or (amount < 0 and txn_id in taken_back):
            withdrawable += amount  # a debit: the withdrawn or taken back proceeds
        withdrawable = min(max(withdrawable, 0), max(balance, 0))
    return balance, withdrawable


def _proceeds_taken_and_given_back(
    user_id: int, rows: list[tuple[int, int, str]]
) -> tuple[set[int], set[int]]:
    if not any(k in (_Kind.REFUND, _Kind.DISPUTE, _Kind.TRANSFER_REVERSAL) for _, _, k in rows):
        return set(), set()
    # One query per table: the seller's sale reversals (taken from available, or given back),
    # and the transfer reversals closed against the seller (refused after a restore, withheld).
    taken: set[int | None] = set()
    given: set[int | None] = set()
    for source, taken_by, given_by in SaleReversal.objects.filter(seller_id=user_id).values_list(
        "source", "ledger_transaction_id", "restore_transaction_id"
    ):
        if source == SaleReversal.Source.AVAILABLE:
            taken.add(taken_by)
        given.add(given_by)
    taken |= set(
        TransferReversal.objects.filter(
            Q(
                sale_reversal__status=SaleReversal.Status.RESTORED,
                status=TransferReversalStatus.REFUSED,
            )
            | Q(status=TransferReversalStatus.WITHHELD),
            sale_reversal__seller_id=user_id,
        ).values_list("close_transaction_id", flat=True)
    )
    return {t for t in taken if t is not None}, {t for t in given if t is not None}


def compute_usd_buckets(*, user_id: int, available: Account) -> UsdBuckets:
    """Split the user's available USD. Exact when the caller holds the AVAILABLE lock
    (every money-moving caller does); a snapshot for pages otherwise."""
    balance, withdrawable = _walk_withdrawable(user_id, available)
    beyond_deposits = balance - _deposits_room_minor(user_id)
    withdrawable = min(max(withdrawable, beyond_deposits, 0), max(balance, 0))
    return UsdBuckets(
        available_minor=balance,
        refundable_minor=max(balance, 0) - withdrawable,
        withdrawable_minor=withdrawable,
    )
