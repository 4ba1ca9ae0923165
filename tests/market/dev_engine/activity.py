"""What the engine's triggers write for a placement, written in Python (moved from activity/
services when SQLite left the product): the reference model of activity migration 0003's
triggers, compared with them in tests/activity/test_events.py and test_fanout.py."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from activity.models import Event, EventKind, Fanout, FanoutKind, WebhookEndpoint
from activity.services.events import _problem_fields
from market.models import Order, OrderSide, OrderStatus, Problem, Trade


def record_trade_events(*, problem: Problem, trades: Sequence[Trade]) -> None:
    """The buyer's and the seller's event of each trade, in ONE multi-row INSERT.

    The trigger ``activity_trade_events`` (migration 0002) writes these same rows for every
    trade the engine inserts, inside the placement's single statement. The fan-out that
    follows (webhook dispatch, the announcement of a resting bid) is queued in
    ``activity.services.fanout``.
    """
    events: list[Event] = []
    for trade in trades:
        common = {
            **_problem_fields(problem),
            "trade_id": trade.pk,
            "solution_id": trade.solution_id,
            "price_minor": trade.price_minor,
            "currency": trade.currency,
        }
        events.append(
            Event(
                user_id=trade.buyer_id,
                kind=EventKind.BID_FILLED,
                key=f"trade:{trade.pk}:buyer",
                payload={**common, "order_id": trade.bid_id},
            )
        )
        events.append(
            Event(
                user_id=trade.seller_id,
                kind=EventKind.ASK_FILLED,
                key=f"trade:{trade.pk}:seller",
                payload={
                    **common,
                    "order_id": trade.ask_id,
                    "fee_minor": trade.fee_minor,
                    "net_minor": trade.price_minor - trade.fee_minor,
                },
            )
        )
    if events:
        Event.objects.bulk_create(events, ignore_conflicts=True)


def queue_placement(*, order: Order, traders: Iterable[int]) -> None:
    """What the triggers queue for one placement, written in Python."""
    rows = []
    if order.side == OrderSide.BID and order.status == OrderStatus.OPEN:
        rows.append(Fanout(kind=FanoutKind.ANNOUNCE_BID, ref=order.pk))
    pending = Fanout.objects.filter(kind=FanoutKind.DISPATCH).values("ref")
    with_webhooks = (
        WebhookEndpoint.objects.filter(user_id__in=set(traders), disabled_at__isnull=True)
        .exclude(user_id__in=pending)
        .values_list("user_id", flat=True)
        .distinct()
    )
    rows += [Fanout(kind=FanoutKind.DISPATCH, ref=user_id) for user_id in sorted(with_webhooks)]
    if rows:
        Fanout.objects.bulk_create(rows)
