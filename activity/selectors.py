"""Reading activity: a user's events after a cursor, the unread count, webhook logs."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.db.models import Max, QuerySet

from activity.models import Event, ReadMarker, WebhookDelivery, WebhookEndpoint
from market.money import format_minor

# The badge says "99+" beyond this: counting further would cost more than it tells.
UNREAD_CAP = 99


@dataclass(frozen=True, slots=True)
class ActivityState:
    """What an ETag of a user's feed depends on: the newest event and the read marker."""

    newest_id: int
    last_read_id: int

    def etag(self, *parts: object) -> str:
        raw = ":".join(str(p) for p in (self.newest_id, self.last_read_id, *parts))
        return '"act-' + hashlib.sha256(raw.encode()).hexdigest()[:24] + '"'


def get_activity_state(*, user_id: int) -> ActivityState:
    newest = Event.objects.filter(user_id=user_id).aggregate(m=Max("id"))["m"] or 0
    return ActivityState(newest_id=newest, last_read_id=get_last_read_id(user_id=user_id))


def get_last_read_id(*, user_id: int) -> int:
    value = ReadMarker.objects.filter(user_id=user_id).values_list("last_read_id", flat=True)
    return value.first() or 0


def list_events_after(*, user_id: int, after: int | None, limit: int) -> list[Event]:
    """Events oldest first after the cursor ``after`` (an event id); without one, the newest
    ``limit`` events (still oldest first), so a new reader starts from the recent past."""
    qs = Event.objects.filter(user_id=user_id)
    if after is not None:
        return list(qs.filter(id__gt=after).order_by("id")[:limit])
    return list(reversed(qs.order_by("-id")[:limit]))


def list_recent_events(*, user_id: int) -> QuerySet[Event]:
    """Newest first, for the page (paginated by the caller)."""
    return Event.objects.filter(user_id=user_id).order_by("-id")


def count_unread(*, user_id: int) -> int:
    """Unread events, counted up to ``UNREAD_CAP + 1``."""
    last_read = get_last_read_id(user_id=user_id)
    ids = Event.objects.filter(user_id=user_id, id__gt=last_read).values("id")[: UNREAD_CAP + 1]
    return len(ids)


def describe_event(event: Event) -> str:
    """One sentence in the user's terms, money formatted with its currency."""
    p = event.payload
    title = p.get("problem_title", "a problem")
    money = format_minor(p["price_minor"], p["currency"]) if "price_minor" in p else ""
    if event.kind == "solution.judged":
        reason = f" ({p['reason']})" if p.get("reason") else ""
        seed = f", seed {p['seed']}" if p.get("seed") is not None else ""
        return (
            f"Your solution {p['solution_id']} to {title} was judged {p['verdict']}{reason}{seed}."
        )
    if event.kind == "ask.filled":
        net = format_minor(p["net_minor"], p["currency"])
        return (
            f"You sold a copy of solution {p['solution_id']} to {title} for {money} "
            f"({net} after the fee)."
        )
    if event.kind == "bid.filled":
        return f"Your bid on {title} bought solution {p['solution_id']} for {money}."
    if event.kind == "bid.arrived":
        return f"A bid of {money} arrived on {title}, where you have an accepted solution."
    return f"{event.kind} on {title}."


def list_user_endpoints(*, user_id: int) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(user_id=user_id, disabled_at__isnull=True).order_by("-id")


def list_endpoint_deliveries(*, endpoint: WebhookEndpoint) -> QuerySet[WebhookDelivery]:
    return WebhookDelivery.objects.filter(endpoint=endpoint).select_related("event").order_by("-id")
