"""One run of the webhook pipeline against a private PostgreSQL cluster (DATABASE_URL), for
tests/activity/test_durable_webhooks.py. Prints one JSON line.

    python tests/activity/durable_webhook_scenario.py <receiver url>

1. Sets up a market (synchronously committed): a resting ask, a funded buyer, and a webhook
   endpoint of the seller and of the buyer pointing at the receiver.
2. Places the crossing bid as the engine does on a busy book: the placement's transaction
   commits with ``synchronous_commit = off`` (market migration 0008's first transaction).
   The trade, its events and its fan-out rows are visible at once, not yet on disk.
3. Runs what the worker runs on that, with this session's ``synchronous_commit = off`` (an
   operator's speed setting for the worker role): drain the fan-out, attempt each delivery.
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

from django.db import connection  # noqa: E402

from activity.services.fanout import drain_fanout  # noqa: E402
from activity.services.webhooks import attempt_delivery, create_webhook_endpoint  # noqa: E402
from market.money import Currency  # noqa: E402
from market.services.orders import DEBT_CURRENCY, place_ask  # noqa: E402
from tests.factories import UserFactory  # noqa: E402
from tests.market.conftest import Market, demo, funded  # noqa: E402
from tests.waiting import wait_until  # noqa: E402


def _fetch(cursor, sql: str, params: list[object]) -> object:
    cursor.execute(sql, params)
    return cursor.fetchone()[0]


def main(receiver_url: str) -> None:
    market = Market(title="Durable")
    seller = UserFactory()
    solution = market.accepted(solver=seller)
    place_ask(seller=seller, solution=solution, price=demo(400), quantity=1)
    buyer = funded(10_000)
    create_webhook_endpoint(user=seller, url=receiver_url)
    create_webhook_endpoint(user=buyer, url=receiver_url)

    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit = off")  # the session, from here on
        # Wake the WAL writer with one asynchronous commit and let it flush: it then waits
        # wal_writer_delay (10 s here) before it flushes again on its own.
        cursor.execute("BEGIN")
        cursor.execute("SELECT pg_logical_emit_message(true, 'formalmarket.test', '')")
        cursor.execute("COMMIT")
        cursor.execute("SELECT pg_current_wal_insert_lsn()::text")
        (warm,) = cursor.fetchone()
        wait_until(
            lambda: _fetch(cursor, "SELECT pg_current_wal_flush_lsn() >= %s::pg_lsn", [warm]),
            "the WAL writer's flush",
            timeout=20,
        )
        cursor.execute("BEGIN")
        cursor.execute(
            "SELECT * FROM market_place_order(%s, %s, 'bid', 500, %s, 1, NULL, NULL, false, "
            "500, 'available', NULL, %s)",
            [buyer.pk, market.problem.pk, str(Currency.DEMO), str(DEBT_CURRENCY)],
        )
        cursor.execute("SELECT id FROM market_trade WHERE buyer_id = %s", [buyer.pk])
        trade_ids = [row[0] for row in cursor.fetchall()]
        cursor.execute("COMMIT")
        cursor.execute("SELECT pg_current_wal_insert_lsn()::text")
        (after_commit,) = cursor.fetchone()
        window_open = _fetch(
            cursor, "SELECT pg_current_wal_flush_lsn() < %s::pg_lsn", [after_commit]
        )

    attempted = []
    for delivery_id in drain_fanout():
        attempt_delivery(delivery_id=delivery_id)
        attempted.append(delivery_id)
    print(
        json.dumps(
            {
                "trade_ids": trade_ids,
                "trade_lsn": after_commit,
                "window_open": window_open,
                "attempted": attempted,
            }
        )
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])
