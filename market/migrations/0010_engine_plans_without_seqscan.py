"""The engine's plans probe indexes whatever the statistics say, for the life of a session.

The engine functions run with ``plan_cache_mode = force_generic_plan`` (migration 0006): each
statement is planned once per session, from the statistics of that moment, and the plan is
kept until the tables are analyzed again. A session that first placed an order while the
market had no entitlements and no trades yet (a new deployment; a table analyzed while empty;
a server with autovacuum off, as on the machines this project is built on) planned the book's
cursor with a *sequential scan of market_entitlement* for every crossing order it reads, and
the foreign-key checks at COMMIT (``SELECT 1 FROM ONLY market_trade x WHERE id = $1 FOR KEY
SHARE``, a plan PostgreSQL's referential-integrity triggers keep per session) with a
sequential scan of market_trade: the cost of a placement then grew with the market's whole
trading history. Measured on a copy of the benchmark's book of 100 000 analyzed before its
first trade, 8 clients, 12 800 placements: 6 400 scans of each table reading 20 million rows
each (pg_stat_user_tables), where an index probe reads one.

Every statement of the engine is a lookup by key or a walk of a book index, so an index is
always the right plan here. This migration:

1. sets ``enable_seqscan = off`` on ``market_place_order`` and ``market_cancel_order`` (and
   so on the helpers and triggers they call, which plan under the caller's settings): a
   sequential scan is then chosen only where no index can serve, whatever the statistics;
2. replaces the two durable procedures of migration 0008 by the same text plus one line,
   ``set_config('enable_seqscan', 'off', true)`` for the placement's own transaction before
   its COMMIT: the foreign-key checks deferred to that COMMIT, and the balanced-postings
   check (which has the setting of its own since 0009), plan with it too. The setting ends
   with that transaction.

Inside a caller's transaction (tests, a caller's ``atomic``) the foreign-key checks run at
the caller's COMMIT, under the caller's settings, as before.
tests/market/test_stale_statistics.py places orders in a session that planned on an empty
market and checks every executed plan of the last placement.
"""

from pathlib import Path

from django.db import migrations

PLACE = (
    "market_place_order(integer, bigint, text, bigint, text, integer, bigint, text, boolean, "
    "integer, text, interval, text)"
)
CANCEL = "market_cancel_order(integer, bigint, text)"

# Frozen copies: 0008's procedures each with the line added before its COMMIT (this
# migration's text), and 0008's own text (for going back).
SQL = Path(__file__).resolve().parent / "sql"
PROCEDURES = SQL / "0010_durable_procedures.sql"
PROCEDURES_BEFORE = SQL / "0010_durable_procedures_before.sql"


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"ALTER FUNCTION {PLACE} SET enable_seqscan = off")
        cursor.execute(f"ALTER FUNCTION {CANCEL} SET enable_seqscan = off")
        cursor.execute(PROCEDURES.read_text())


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"ALTER FUNCTION {PLACE} RESET enable_seqscan")
        cursor.execute(f"ALTER FUNCTION {CANCEL} RESET enable_seqscan")
        cursor.execute(PROCEDURES_BEFORE.read_text())


class Migration(migrations.Migration):
    dependencies = [("market", "0009_balanced_check_generic_plan")]

    operations = [migrations.RunPython(forward, backward)]
