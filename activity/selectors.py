"""Reading activity: a user's events after a cursor, the unread count, webhook logs."""

from __future__ import annotations

import hashlib
import re

from django.db.models import Q, QuerySet
from django.db.models.expressions import RawSQL

from activity.models import Event, ReadMarker, WebhookDelivery, WebhookEndpoint
from market.money import format_minor

# The badge says "99+" beyond this: counting further would cost more than it tells.
UNREAD_CAP = 99


def activity_etag(*parts: object) -> str:
    raw = ":".join(str(p) for p in parts)
    return '"act-' + hashlib.sha256(raw.encode()).hexdigest()[:24] + '"'


def get_last_read_id(*, user_id: int) -> int:
    value = ReadMarker.objects.filter(user_id=user_id).values_list("last_read_id", flat=True)
    return value.first() or 0


_CURSOR = re.compile(r"^([0-9]{1,19})-([0-9]{1,19})$")
Cursor = tuple[int, int]  # (txid, id) of the last event read


def parse_cursor(value: str) -> Cursor | None:
    """``"<txid>-<id>"`` from a previous answer, or ``"0"`` for the beginning; else None."""
    if value == "0":
        return (0, 0)
    match = _CURSOR.match(value)
    return (int(match.group(1)), int(match.group(2))) if match else None


def format_cursor(cursor: Cursor) -> str:
    return "0" if cursor == (0, 0) else f"{cursor[0]}-{cursor[1]}"


# The oldest transaction id that was still running when this statement's snapshot was taken,
# among those of this database (xids are cluster-wide; transactions of other databases, seen
# in pg_stat_activity, cannot write our events and must not hold the feed back), else the
# snapshot's xmax. A transaction that ends between the snapshot and the read of
# pg_stat_activity still counts as running: the bound can only be lower, never too high.
_SETTLED_BOUND_SQL = """(
  SELECT COALESCE(MIN(x::text::bigint), pg_snapshot_xmax(pg_current_snapshot())::text::bigint)
  FROM pg_snapshot_xip(pg_current_snapshot()) AS x
  WHERE (x::text::bigint & 4294967295) NOT IN (
    SELECT a.backend_xid::text::bigint FROM pg_stat_activity AS a
    WHERE a.backend_xid IS NOT NULL AND a.datname IS DISTINCT FROM current_database()
  )
)"""


def _final_events(user_id: int) -> QuerySet[Event]:
    """The user's events that no running transaction can precede any more.

    A transaction still running has a txid at or above the bound above (and one that starts
    later gets a larger one), so an event below it is never overtaken by one that commits
    later. The reader's own transaction's events are visible to it and final for it.
    """
    events = Event.objects.filter(user_id=user_id)
    bound = RawSQL(_SETTLED_BOUND_SQL, [])  # noqa: S611  (a constant, no input)
    own = RawSQL("pg_current_xact_id_if_assigned()::text::bigint", [])
    return events.filter(Q(txid__lt=bound) | Q(txid=own))


def list_events_after(*, user_id: int, after: Cursor | None, limit: int) -> list[Event]:
    """Events oldest first after the cursor ``after``; without one, the newest ``limit``
    events (still oldest first), so a new reader starts from the recent past.

    The order is (txid, id): gap-free for a reader that keeps its cursor (see ``Event.txid``).
    """
    qs = _final_events(user_id)
    if after is not None:
        txid, event_id = after
        newer = Q(txid__gt=txid) | Q(txid=txid, id__gt=event_id)
        return list(qs.filter(newer).order_by("txid", "id")[:limit])
    return list(reversed(qs.order_by("-txid", "-id")[:limit]))


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
    if event.kind in ("sale.disputed", "sale.reversed", "sale.restored") and p.get("message"):
        # Written with the change, amounts formatted, reason included (payments provenance).
        return str(p["message"])
    return f"{event.kind} on {title}."


def list_user_endpoints(*, user_id: int) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(user_id=user_id, disabled_at__isnull=True).order_by("-id")


def list_endpoint_deliveries(*, endpoint: WebhookEndpoint) -> QuerySet[WebhookDelivery]:
    return WebhookDelivery.objects.filter(endpoint=endpoint).select_related("event").order_by("-id")
