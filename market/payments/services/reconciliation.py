"""Reconciliation: the ledger compared with Stripe's balance transactions, in cents.

``reconcile_with_stripe`` lists every balance transaction (``GET /v1/balance_transactions``,
paged with ``starting_after``) and sums their gross ``amount`` by ``reporting_category``;
our side is computed from the rows every movement writes. Each category is compared, and
every difference is stored on a :class:`ReconciliationRun` (the account page shows the last
one to staff). Stripe's processing fees (``fee``) are not in our ledger and are not compared.

| category | Stripe | ledger |
|---|---|---|
| charge | + gross of each payment | + Σ paid deposits |
| refund | − each refund | − Σ ``refunded_minor`` |
| dispute | − disputed, + ``dispute_reversal`` when won | − Σ open and lost disputes |
| transfer | − each transfer, + ``transfer_reversal`` | − Σ net paid out + Σ reversals made |
"""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any

import stripe
from django.db.models import Sum

from market.payments import stripe_client
from market.payments.exceptions import StripeUnavailable
from market.payments.models import (
    Deposit,
    DepositStatus,
    Dispute,
    DisputeStatus,
    ReconciliationRun,
    TransferReversal,
    TransferReversalStatus,
    Withdrawal,
    WithdrawalStatus,
)

logger = logging.getLogger(__name__)

# Stripe's reporting categories folded into ours.
_CATEGORY = {
    "charge": "charge",
    "refund": "refund",
    "refund_failure": "refund",
    "dispute": "dispute",
    "dispute_reversal": "dispute",
    "transfer": "transfer",
    "transfer_reversal": "transfer",
}
PAGE = 100


def _sum(qs: Any, field: str = "amount_minor") -> int:
    return int(qs.aggregate(s=Sum(field))["s"] or 0)


def ledger_by_category() -> dict[str, int]:
    paid = Deposit.objects.filter(status=DepositStatus.PAID)
    taken = Dispute.objects.filter(status__in=(DisputeStatus.OPEN, DisputeStatus.LOST))
    paid_out = Withdrawal.objects.filter(status=WithdrawalStatus.PAID)
    return {
        "charge": _sum(paid),
        "refund": -_sum(paid, "refunded_minor"),
        "dispute": -_sum(taken),
        "transfer": -(_sum(paid_out) - _sum(paid_out, "fee_minor"))
        + _sum(TransferReversal.objects.filter(status=TransferReversalStatus.SUCCEEDED)),
    }


def stripe_by_category() -> dict[str, int]:
    client = stripe_client.get_client()
    totals: dict[str, int] = defaultdict(int)
    after: str | None = None
    while True:
        params: dict[str, Any] = {"limit": PAGE}
        if after:
            params["starting_after"] = after
        try:
            page = client.v1.balance_transactions.list(params=params)  # type: ignore[arg-type]
        except stripe.StripeError as error:
            raise StripeUnavailable("Stripe's balance transactions could not be read") from error
        for txn in page.data:
            fields = txn.to_dict()
            category = _CATEGORY.get(str(fields.get("reporting_category") or ""), "other")
            totals[category] += int(fields.get("amount") or 0)
        if not page.has_more or not page.data:
            break
        after = str(page.data[-1].id)
    return dict(totals)


def reconcile_with_stripe() -> ReconciliationRun:
    """Compare, store and return the run; every difference is logged as an error."""
    ours = ledger_by_category()
    theirs = stripe_by_category()
    differences = []
    for category in sorted(set(ours) | set(theirs)):
        mine, stripes = ours.get(category, 0), theirs.get(category, 0)
        if mine != stripes:
            differences.append(
                {
                    "what": category,
                    "ledger_minor": mine,
                    "stripe_minor": stripes,
                    "amount_minor": stripes - mine,
                }
            )
    run = ReconciliationRun.objects.create(
        ledger_minor=sum(ours.values()),
        stripe_minor=sum(theirs.values()),
        differences=differences,
    )
    for difference in differences:
        logger.error("reconciliation %s: %s", run.pk, difference)
    return run
