"""The fan-out outbox (``activity.models.Fanout``): queued in a change's transaction, drained
by the task ``activity.drain_fanout`` when it commits (the outbox NOTIFYs, beat's listener
enqueues the drain: :mod:`activity.services.listener`) and every ``ACTIVITY_FANOUT_EVERY_S``
(30 s) as the backstop.

The matching engine's rows are queued by triggers (activity migration 0003).
Draining announces each queued resting bid (``events.announce_bid``) and dispatches the
webhooks of every user concerned, in one transaction per batch: rows are claimed with
SKIP LOCKED, so two drains never do the same work, and a crash before commit leaves them
queued for the next one. Announcing twice is a no-op (events are unique per user and key).
"""

from __future__ import annotations

import logging

from django.db import transaction

from activity.models import Fanout, FanoutKind

logger = logging.getLogger(__name__)


def drain_fanout(*, limit: int = 500) -> list[int]:
    """Do up to ``limit`` queued fan-outs; returns the ids of the webhook deliveries now due.

    Each announcement runs in its own savepoint: one that fails is logged and dropped (the bid
    stays in the book; only its ``bid.arrived`` events are missing) instead of blocking every
    row behind it. A failed dispatch is logged too: the webhook sweep (every
    ``WEBHOOK_SWEEP_EVERY_S``) sends what it left.
    """
    from activity.services.events import announce_bid
    from activity.services.webhooks import dispatch_webhooks

    with transaction.atomic():
        claimed = list(
            Fanout.objects.select_for_update(skip_locked=True)
            .order_by("id")
            .values_list("id", "kind", "ref")[:limit]
        )
        if not claimed:
            return []
        users: set[int] = set()
        for _, kind, ref in claimed:
            if kind != FanoutKind.ANNOUNCE_BID:
                users.add(ref)
                continue
            try:
                with transaction.atomic():
                    users.update(announce_bid(order_id=ref))
            except Exception:
                logger.exception("announcing bid %s failed; dropped", ref)
        Fanout.objects.filter(pk__in=[pk for pk, _, _ in claimed]).delete()
        if not users:
            return []
        try:
            with transaction.atomic():
                return dispatch_webhooks(user_ids=sorted(users))
        except Exception:
            logger.exception(
                "dispatching webhooks of %d users failed; the sweep retries", len(users)
            )
            return []
