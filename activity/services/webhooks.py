"""Webhook endpoints and their deliveries: register, remove, dispatch, attempt.

Deliveries are created from the events table (the outbox) by a query, not by the writer of
an event: every event of an endpoint's user newer than the endpoint and without a delivery to
it gets one (unique per endpoint and event, so dispatching twice is a no-op). A delivery is
attempted by a Celery task; a failure is retried with exponential backoff up to
``WEBHOOK_MAX_ATTEMPTS``; a beat sweep re-sends anything whose message was lost. A POST
goes out only after the commits it announces are flushed (:func:`_claim`).
"""

from __future__ import annotations

import json
import secrets
import time
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from activity.exceptions import InvalidWebhook
from activity.models import DeliveryStatus, Event, WebhookDelivery, WebhookEndpoint
from activity.selectors import describe_event
from activity.webhook_transport import SIGNATURE_HEADER, TargetRefused, check_target, post, sign
from market.exceptions import NotFound
from market.services.accounts import lock_user_row

MAX_ENDPOINTS = 5
# An attempt holds its delivery this long; a worker killed mid-attempt frees it after that.
ATTEMPT_LEASE = timedelta(seconds=60)
# Events older than this are not dispatched by the sweep (an endpoint added much later, or
# a long outage: the activity API still has them).
DISPATCH_HORIZON = timedelta(days=3)


def create_webhook_endpoint(
    *, user: AbstractBaseUser, url: str, description: str = ""
) -> WebhookEndpoint:
    """Register ``url`` for the user's future events; the secret is in ``endpoint.secret``."""
    url = (url or "").strip()
    description = (description or "").strip()
    if not url or len(url) > 500:
        raise InvalidWebhook("invalid URL", fields={"url": ["1 to 500 characters"]})
    if len(description) > 100:
        raise InvalidWebhook("invalid description", fields={"description": ["at most 100"]})
    try:
        check_target(url)
    except TargetRefused as exc:
        raise InvalidWebhook(
            f"this URL cannot receive webhooks: {exc}", fields={"url": [str(exc)]}
        ) from None
    with transaction.atomic():
        # Lock the user's row, not the endpoints: locking existing rows does not stop two
        # concurrent creates from both counting 4 and both inserting (a 6th endpoint).
        # NO KEY UPDATE: rows that merely reference the user (orders, postings) stay free.
        lock_user_row(user_id=user.pk)
        active = WebhookEndpoint.objects.filter(user_id=user.pk, disabled_at__isnull=True)
        if active.count() >= MAX_ENDPOINTS:
            raise InvalidWebhook(
                f"at most {MAX_ENDPOINTS} webhook endpoints; remove one first",
                fields={"url": ["too many endpoints"]},
            )
        newest = Event.objects.filter(user_id=user.pk).aggregate(m=Max("id"))["m"] or 0
        return WebhookEndpoint.objects.create(
            user_id=user.pk,
            url=url,
            description=description,
            secret="whsec_" + secrets.token_urlsafe(32),
            start_after_event_id=newest,
        )


def get_own_endpoint(*, user: AbstractBaseUser, endpoint_id: int) -> WebhookEndpoint:
    """The user's active endpoint; another user's or a removed one is NotFound."""
    endpoint = WebhookEndpoint.objects.filter(
        pk=endpoint_id, user_id=user.pk, disabled_at__isnull=True
    ).first()
    if endpoint is None:
        raise NotFound("no such webhook endpoint")
    return endpoint


def remove_webhook_endpoint(*, user: AbstractBaseUser, endpoint_id: int) -> WebhookEndpoint:
    """Stop sending to the endpoint (its log is kept); pending deliveries are not attempted."""
    endpoint = get_own_endpoint(user=user, endpoint_id=endpoint_id)
    endpoint.disabled_at = timezone.now()
    endpoint.save(update_fields=["disabled_at"])
    return endpoint


def dispatch_webhooks(*, user_ids: list[int] | None = None) -> list[int]:
    """Create the missing deliveries of the users' (default: everyone's) events; returns the
    ids of deliveries that are due now (new ones, and pending ones whose time has come)."""
    endpoints = WebhookEndpoint.objects.filter(disabled_at__isnull=True)
    if user_ids is not None:
        endpoints = endpoints.filter(user_id__in=user_ids)
    horizon = timezone.now() - DISPATCH_HORIZON
    for endpoint in endpoints:
        missing = (
            Event.objects.filter(
                user_id=endpoint.user_id,
                id__gt=endpoint.start_after_event_id,
                created_at__gte=horizon,
            )
            .exclude(deliveries__endpoint=endpoint)
            .order_by("id")
            .values_list("id", flat=True)[:500]
        )
        WebhookDelivery.objects.bulk_create(
            [WebhookDelivery(endpoint=endpoint, event_id=event_id) for event_id in missing],
            ignore_conflicts=True,
        )
    now = timezone.now()
    due = WebhookDelivery.objects.filter(
        status=DeliveryStatus.PENDING, endpoint__in=endpoints
    ).filter(Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now))
    return list(due.order_by("id").values_list("id", flat=True)[:1000])


def event_body(event: Event) -> bytes:
    """The JSON body of every delivery of ``event`` (the same bytes on each retry)."""
    return json.dumps(
        {
            "id": event.event_id,
            "type": event.kind,
            "created_at": event.created_at.isoformat(),
            "message": describe_event(event),
            "data": event.payload,
        },
        separators=(",", ":"),
        sort_keys=True,
    ).encode()


def backoff_s(attempts: int) -> float:
    """Seconds before attempt ``attempts + 1``: base × 2^(attempts - 1), capped."""
    base = float(settings.WEBHOOK_RETRY_BASE_S)
    return min(base * (2 ** max(attempts - 1, 0)), float(settings.WEBHOOK_RETRY_MAX_S))


def _claim(delivery_id: int) -> WebhookDelivery | None:
    """Claim a due delivery for one attempt; its transaction commits only once durable.

    Acting only on flushed commits (issue 29 §3): the engine may commit a placement with
    ``synchronous_commit = off`` (busy book, market migration 0008), so the trade an event
    names can be visible before it is on disk. This claim's transaction commits with
    ``synchronous_commit`` at least ``on``, whatever the session's: its COMMIT returns once the
    WAL is flushed up to its own commit record, which lies after the commit of everything it
    read (the event, so the trade). A crash before that loses the trade and this claim
    together, and no POST went out. It costs nothing more when the WAL is already flushed.
    """
    now = timezone.now()
    with transaction.atomic():
        with connection.cursor() as cursor:
            # Raise "off" to "on"; a stronger setting (remote_apply, ...) is kept.
            cursor.execute(
                "SELECT set_config('synchronous_commit', 'on', true) "
                "WHERE current_setting('synchronous_commit') = 'off'"
            )
        delivery = (
            WebhookDelivery.objects.select_for_update(skip_locked=True)
            .select_related("endpoint", "event")
            .filter(pk=delivery_id, status=DeliveryStatus.PENDING)
            .filter(Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now))
            .first()
        )
        if delivery is None:
            return None
        if not delivery.endpoint.is_active:
            delivery.status = DeliveryStatus.FAILED
            delivery.last_error = "the endpoint was removed"
            delivery.save(update_fields=["status", "last_error"])
            return None
        WebhookDelivery.objects.filter(pk=delivery_id).update(
            attempts=F("attempts") + 1, last_attempt_at=now, next_attempt_at=now + ATTEMPT_LEASE
        )
        delivery.refresh_from_db(fields=["attempts", "last_attempt_at", "next_attempt_at"])
        return delivery


def attempt_delivery(*, delivery_id: int) -> float | None:
    """Make one attempt if the delivery is due; returns seconds until the next attempt, or None
    when there is nothing more to do (delivered, given up, not due, or taken by another)."""
    delivery = _claim(delivery_id)
    if delivery is None:
        return None
    body = event_body(delivery.event)
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "FormalMarket-Webhooks/1",
        SIGNATURE_HEADER: sign(secret=delivery.endpoint.secret, timestamp=timestamp, body=body),
        "FormalMarket-Event-Id": delivery.event.event_id,
        "FormalMarket-Delivery-Id": str(delivery.pk),
        "FormalMarket-Delivery-Attempt": str(delivery.attempts),
    }
    status_code: int | None = None
    error = ""
    try:
        status_code = post(
            url=delivery.endpoint.url,
            body=body,
            headers=headers,
            timeout_s=float(settings.WEBHOOK_TIMEOUT_S),
        )
        if not 200 <= status_code < 300:
            error = f"the endpoint answered {status_code}"
    except TargetRefused as exc:
        error = f"refused: {exc}"
    except (OSError, ValueError) as exc:  # connection refused, timeout, TLS, bad response
        error = f"{type(exc).__name__}: {exc}"[:300]
    now = timezone.now()
    if not error:
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=DeliveryStatus.SUCCEEDED,
            last_status_code=status_code,
            last_error="",
            delivered_at=now,
            next_attempt_at=None,
        )
        return None
    if delivery.attempts >= int(settings.WEBHOOK_MAX_ATTEMPTS):
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=DeliveryStatus.FAILED,
            last_status_code=status_code,
            last_error=error[:300],
            next_attempt_at=None,
        )
        return None
    delay = backoff_s(delivery.attempts)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        last_status_code=status_code,
        last_error=error[:300],
        next_attempt_at=now + timedelta(seconds=delay),
    )
    return delay
