"""How a row Stripe answers closes: a deposit refund, a withdrawal, a transfer reversal.

Each is REQUESTED until Stripe's answer; it then closes once, under its row lock, recording
its new status, when, the ledger transaction that closed it (a succeeded refund has none:
its money left when it was requested) and either Stripe's id for what it made or the
refusal's code and message. A REQUESTED row older than PAYOUT_STUCK_AFTER_S is stuck (its
task gave up or was lost): the sweep sends it again.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from market.models import LedgerTransaction
from market.payments.models import DepositRefund, TransferReversal, Withdrawal

Closable = DepositRefund | Withdrawal | TransferReversal


def record_closed(
    row: Closable,
    *,
    status: str,
    close_transaction: LedgerTransaction | None = None,
    refusal: tuple[str, str] | None = None,
    **made: str,
) -> None:
    """Record how ``row`` closed: ``status``, now, its closing transaction, a refusal's
    ``(code, message)`` (cut to their columns) or ``made``, Stripe's id of what it made.
    Precondition: the row is locked and still REQUESTED."""
    fields: dict[str, object] = {"status": status, **made}
    if refusal is not None:
        code, message = refusal
        fields["failure_code"] = code[:100]
        fields["failure_message"] = message[:500]
    if close_transaction is not None:
        fields["close_transaction"] = close_transaction
    fields["closed_at"] = timezone.now()
    for name, value in fields.items():
        setattr(row, name, value)
    row.save(update_fields=list(fields))


def list_stuck_ids(model: type[Closable], *, requested: str) -> list[int]:
    """The ids of ``model``'s rows still ``requested`` after PAYOUT_STUCK_AFTER_S, in id order."""
    cutoff = timezone.now() - timedelta(seconds=settings.PAYOUT_STUCK_AFTER_S)
    return list(
        model.objects.filter(status=requested, created_at__lt=cutoff)
        .order_by("id")
        .values_list("id", flat=True)
    )
