"""Activity events (the outbox of what a user should learn) and webhook subscriptions."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Now


class CurrentTransactionId(models.Func):
    """The writing transaction's id (PostgreSQL ``pg_current_xact_id()``, as a bigint)."""

    template = "(pg_current_xact_id()::text::bigint)"
    output_field = models.BigIntegerField()


class EventKind(models.TextChoices):
    SOLUTION_JUDGED = "solution.judged"
    ASK_FILLED = "ask.filled"
    BID_FILLED = "bid.filled"
    BID_ARRIVED = "bid.arrived"
    # A seller's USD sale taken back because the buyer's payment was (docs/payments.md).
    SALE_DISPUTED = "sale.disputed"
    SALE_REVERSED = "sale.reversed"
    SALE_RESTORED = "sale.restored"


class Event(models.Model):
    """One thing a user should learn, written in the transaction of the change it describes.

    ``key`` names the change (``verdict:<solution>``, ``trade:<id>:sell``, ...): the pair
    (user, key) is unique, so writing an event twice (a retried task, a replayed verdict) is a
    no-op, and a webhook receiver can de-duplicate on ``event_id`` (``evt_<id>``).
    """

    # No index of its own: the three below lead with it (one fewer to write per event).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="activity_events",
        db_index=False,
    )
    kind = models.CharField(max_length=32, choices=EventKind.choices)
    key = models.CharField(max_length=100)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    # The feed is ordered by (txid, id), not by id alone: ids are taken at INSERT but become
    # visible at COMMIT, so a reader at id 11 could later see 10 appear. A transaction still
    # running has a txid at or above the current snapshot's xmin; events below it are final.
    txid = models.BigIntegerField(db_default=CurrentTransactionId(), editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="activity_event_unique_key"),
        ]
        indexes = [
            models.Index(fields=["user", "id"], name="activity_event_user_id"),
            models.Index(fields=["user", "txid", "id"], name="activity_event_user_feed"),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} {self.kind} for {self.user_id}"

    @property
    def event_id(self) -> str:
        return f"evt_{self.pk}"


class FanoutKind(models.TextChoices):
    ANNOUNCE_BID = "announce_bid"  # ref: a resting bid's order id
    DISPATCH = "dispatch"  # ref: a user id whose webhooks have new events


class Fanout(models.Model):
    """Work for after a change commits, written in the change's own transaction (an outbox).

    The matching engine's statement writes these rows through triggers (PostgreSQL, activity
    migration 0003): a resting bid to announce to the
    users who could sell to it, a trader whose webhooks have new events. The task
    ``activity.drain_fanout`` claims and does them, enqueued by beat's listener when the rows
    commit (``NOTIFY activity_fanout``, activity migration 0005) and every 30 s as a backstop,
    so a placement sends no broker message and none is lost with a broker outage at commit.
    """

    kind = models.CharField(max_length=16, choices=FanoutKind.choices)
    ref = models.BigIntegerField()
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        # A trader's dispatch is queued once while one is pending (the trigger looks it up).
        indexes = [models.Index(fields=["kind", "ref"], name="activity_fanout_kind_ref")]

    def __str__(self) -> str:
        return f"{self.kind} {self.ref}"


class ReadMarker(models.Model):
    """The newest event id the user has marked as read (unread = events above it)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="activity_read_marker"
    )
    last_read_id = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user_id} read up to {self.last_read_id}"


class WebhookEndpoint(models.Model):
    """A URL that receives the user's events, each delivery signed with ``secret``."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook_endpoints"
    )
    url = models.URLField(max_length=500)
    description = models.CharField(max_length=100, blank=True)
    # Needed in clear to sign deliveries (like Stripe's whsec_ secrets); shown to its owner once.
    secret = models.CharField(max_length=80)
    # Events up to this id existed before the endpoint: they are not sent to it.
    start_after_event_id = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    disabled_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"webhook {self.pk} of {self.user_id}: {self.url}"

    @property
    def is_active(self) -> bool:
        return self.disabled_at is None


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class WebhookDelivery(models.Model):
    """One event sent to one endpoint, with its attempts (the delivery log)."""

    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(
        max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "event"], name="webhook_delivery_once_per_event"
            ),
            models.CheckConstraint(
                condition=~Q(status="succeeded") | Q(delivered_at__isnull=False),
                name="webhook_delivery_succeeded_has_time",
            ),
        ]
        indexes = [
            models.Index(
                fields=["status", "next_attempt_at"],
                name="webhook_delivery_due",
                condition=Q(status="pending"),
            )
        ]

    def __str__(self) -> str:
        return f"delivery {self.pk}: {self.event_id} -> {self.endpoint_id} {self.status}"
