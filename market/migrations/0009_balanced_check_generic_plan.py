"""The balanced-postings check plans its query once per session, not at every posting.

``market_posting_check_balanced`` (migration 0006) runs at COMMIT once per posting, while a
placement still holds its book. PostgreSQL chose a custom plan for its query at every call
whenever the ledger's statistics were skewed: a few ledger transactions with many postings
(a bulk funding, a batch of grants) make the generic estimate for ``transaction_id = $1``
large, so the plan cache judged the generic plan worse and planned afresh each time. Planning
was then 6.6 % of the server's time under the 8-client benchmark (perf), all of it inside
the book's lock; with a generic plan, one book took 25 % more placements per second
(pgbench, 8 clients, 6 paired rounds on a fresh copy of a book of 100 000: 626 to 782 /s,
median).

A generic plan is made without the transaction's id, from the statistics alone: with few
distinct transactions on record and postings interleaved on disk it would be a scan of the
whole ledger at every posting (a review reproduced a parallel sequential scan, 41 ms a probe).
So the function also runs with ``enable_seqscan = off``: its three lookups are by key and are
always index probes, whatever the statistics (tests/market/test_book_index.py checks both
skews). The check itself, and what it refuses, is unchanged.
"""

from django.db import migrations

FORWARD = """
ALTER FUNCTION market_posting_check_balanced() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION market_posting_check_balanced() SET enable_seqscan = off;
"""
BACKWARD = "ALTER FUNCTION market_posting_check_balanced() RESET ALL"


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FORWARD)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("market", "0008_engine_durable_ack")]

    operations = [migrations.RunPython(forward, backward)]
