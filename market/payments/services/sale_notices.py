"""What a seller is told when a sale is taken back, held, or given back: an activity event
in the transaction of the change, and the same sentence on their pages."""

from __future__ import annotations

from market.models import Trade
from market.money import format_minor
from market.payments.models import SaleReversal

USD = "USD"

_EVENT_KINDS = {
    SaleReversal.Status.DISPUTED: "sale.disputed",
    SaleReversal.Status.REVERSED: "sale.reversed",
    SaleReversal.Status.RESTORED: "sale.restored",
}


def seller_message(reversal: SaleReversal) -> str:
    """Why a seller's sale was taken back (or given back), in words, amounts formatted."""
    amount = format_minor(reversal.seller_minor, USD)
    how = SaleReversal.Source(reversal.source).label
    trade = f"trade {reversal.trade_id}"
    if reversal.status == SaleReversal.Status.DISPUTED:
        return (
            f"{amount} of your sale ({trade}) is on hold, {how}: the buyer's payment is disputed."
        )
    if reversal.status == SaleReversal.Status.RESTORED:
        return f"{amount} of your sale ({trade}) is yours again: the dispute was decided for us."
    return f"{amount} of your sale ({trade}) was reversed, {how}: {reversal.reason}."


def tell_seller(reversal: SaleReversal, trade: Trade) -> None:
    """The seller's activity event, in the transaction of the change."""
    from activity.models import Event

    Event.objects.bulk_create(
        [
            Event(
                user_id=reversal.seller_id,
                kind=_EVENT_KINDS[SaleReversal.Status(reversal.status)],
                key=f"sale-reversal:{reversal.pk}:{reversal.status}",
                payload={
                    "trade_id": trade.pk,
                    "problem_id": trade.problem_id,
                    "solution_id": trade.solution_id,
                    "price_minor": trade.price_minor,
                    "currency": trade.currency,
                    "reversed_minor": reversal.seller_minor,
                    "source": reversal.source,
                    "status": reversal.status,
                    "message": seller_message(reversal),
                },
            )
        ],
        ignore_conflicts=True,
    )
