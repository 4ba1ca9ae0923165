"""Celery tasks of activity (default queue; thin and idempotent: each calls one service)."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import beat_init

logger = logging.getLogger(__name__)


@beat_init.connect
def listen_for_the_fanout_outbox(sender: object, **kwargs: object) -> None:
    """In beat (one per deployment): drain the fan-out outbox as soon as a change commits.

    The engine's triggers queue fan-out rows and ``NOTIFY activity_fanout`` (activity
    migration 0005); this listener enqueues one ``activity.drain_fanout`` per burst, at most
    one per ``ACTIVITY_FANOUT_COALESCE_S``. The beat
    schedule's slow sweep (ACTIVITY_FANOUT_EVERY_S) is the backstop.
    """
    from django.conf import settings

    if not getattr(settings, "ACTIVITY_FANOUT_LISTEN", True):
        return
    from activity.services.listener import start_fanout_listener

    start_fanout_listener(
        on_notify=lambda: drain_fanout_task.delay(),
        coalesce_s=settings.ACTIVITY_FANOUT_COALESCE_S,
    )
    logger.info("listening for the fan-out outbox (NOTIFY activity_fanout)")


@shared_task(name="activity.dispatch_webhooks", queue="default", ignore_result=True)
def dispatch_webhooks_task(*, user_ids: list[int] | None = None) -> int:
    """Create the users' missing deliveries and send each one that is due."""
    from activity.services.webhooks import dispatch_webhooks

    due = dispatch_webhooks(user_ids=user_ids)
    for delivery_id in due:
        deliver_webhook_task.delay(delivery_id=delivery_id)
    return len(due)


@shared_task(name="activity.deliver_webhook", queue="default", ignore_result=True)
def deliver_webhook_task(*, delivery_id: int) -> None:
    """One attempt; on failure the next one is scheduled with exponential backoff."""
    from activity.services.webhooks import attempt_delivery

    retry_in = attempt_delivery(delivery_id=delivery_id)
    if retry_in is not None:
        deliver_webhook_task.apply_async(kwargs={"delivery_id": delivery_id}, countdown=retry_in)


@shared_task(name="activity.drain_fanout", queue="default", ignore_result=True)
def drain_fanout_task() -> int:
    """Announce queued resting bids, dispatch queued webhooks: sent by the fan-out listener
    when a change commits, and by beat every ACTIVITY_FANOUT_EVERY_S as the backstop."""
    from activity.services.fanout import drain_fanout

    due = drain_fanout()
    for delivery_id in due:
        deliver_webhook_task.delay(delivery_id=delivery_id)
    return len(due)


@shared_task(name="activity.sweep_webhooks", queue="default", ignore_result=True)
def sweep_webhooks_task() -> int:
    """Beat: dispatch whatever a lost message left behind (outbox sweep)."""
    return dispatch_webhooks_task(user_ids=None)
