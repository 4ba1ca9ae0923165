"""The webhook pipeline around a crash, against a private PostgreSQL cluster (DATABASE_URL) whose
WAL writer is frozen, for tests/activity/test_durable_webhooks.py. Prints one JSON line.

    python tests/activity/durable_webhook_scenario.py before <receiver url>
    python tests/activity/durable_webhook_scenario.py after

``before`` sets up three problems, each with a resting ask, a funded buyer and a webhook
endpoint of both traders at the receiver, then trades on each:

- ``flushed``: the crossing bid placed as deployed on an idle book (one CALL, synchronous
  commit). Its deliveries are created but not attempted: the worker got no further.
- ``acted_on``: the crossing bid commits as the engine commits it on a busy book
  (``synchronous_commit = off`` for the placement's transaction, market migration 0008);
  then the worker runs on it at once, with its own session asynchronous too (an operator's
  speed setting for the worker role): drain the fan-out, attempt this trade's deliveries.
- ``unflushed``: committed the same way, its fan-out drained (its deliveries exist), nothing
  attempted. Nothing synchronous commits after it: a crash now loses it.

``after`` (once the cluster has recovered) runs what the worker's backstops run: drain the
fan-out, dispatch every user's missing deliveries, attempt each one that is due.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402

from activity.models import WebhookDelivery  # noqa: E402
from activity.services.fanout import drain_fanout  # noqa: E402
from activity.services.webhooks import (  # noqa: E402
    attempt_delivery,
    create_webhook_endpoint,
    dispatch_webhooks,
)
from market.models import Trade  # noqa: E402
from market.services.orders import place_ask, place_bid  # noqa: E402
from tests.factories import UserFactory  # noqa: E402
from tests.market.conftest import Market, demo, funded  # noqa: E402


def _lsn_now() -> str:
    """The WAL insert position: past the commit record of everything committed so far."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_insert_lsn()::text")
        return cursor.fetchone()[0]


def _book(receiver_url: str, title: str) -> tuple[Market, object]:
    """A problem with one resting ask; both traders-to-be have an endpoint. Returns the buyer."""
    market = Market(title=title)
    seller = UserFactory()
    place_ask(seller=seller, solution=market.accepted(solver=seller), price=demo(400), quantity=1)
    buyer = funded(10_000)
    create_webhook_endpoint(user=seller, url=receiver_url)
    create_webhook_endpoint(user=buyer, url=receiver_url)
    return market, buyer


def _trade(market: Market, buyer: object, *, asynchronous: bool) -> dict[str, object]:
    if asynchronous:
        # The engine's first transaction on a busy book: the function, then a COMMIT that
        # does not wait for the WAL flush (what the procedure's set_config does).
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config('synchronous_commit', 'off', true)")
            place_bid(buyer=buyer, problem=market.problem, price=demo(500), quantity=1)
    else:
        place_bid(buyer=buyer, problem=market.problem, price=demo(500), quantity=1)
    (trade,) = Trade.objects.filter(buyer_id=buyer.pk)
    return {
        "id": trade.pk,
        "solution_id": trade.solution_id,
        "price_minor": trade.price_minor,
        "committed_by_lsn": _lsn_now(),
    }


def before(receiver_url: str) -> dict[str, object]:
    books = {name: _book(receiver_url, name) for name in ("flushed", "acted_on", "unflushed")}
    trades = {"flushed": _trade(*books["flushed"], asynchronous=False)}
    trades["acted_on"] = _trade(*books["acted_on"], asynchronous=True)

    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit = off")  # the worker's session, from here on
    drain_fanout()
    attempted = []
    for delivery in WebhookDelivery.objects.filter(
        event__payload__trade_id=trades["acted_on"]["id"]
    ).order_by("id"):
        attempt_delivery(delivery_id=delivery.pk)
        attempted.append(delivery.pk)

    trades["unflushed"] = _trade(*books["unflushed"], asynchronous=True)
    drain_fanout()
    pending = WebhookDelivery.objects.filter(
        event__payload__trade_id=trades["unflushed"]["id"]
    ).count()
    return {"trades": trades, "attempted": attempted, "unflushed_deliveries": pending}


def after() -> dict[str, object]:
    due = set(drain_fanout()) | set(dispatch_webhooks(user_ids=None))
    for delivery_id in sorted(due):
        attempt_delivery(delivery_id=delivery_id)
    return {"attempted": sorted(due)}


if __name__ == "__main__":
    outcome = before(sys.argv[2]) if sys.argv[1] == "before" else after()
    print(json.dumps(outcome))
    sys.stdout.flush()
