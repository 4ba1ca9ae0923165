"""The engine's refusals as SQLSTATEs with a JSON DETAIL, answered in one round trip (issue 29, §4).

- Every refusal of ``market_place_order`` and ``market_cancel_order`` is raised with its own
  SQLSTATE of class ``FM`` (``FM001`` ...) and a DETAIL that is a JSON object; the one table
  that reads them is ``market/engine_refusals.py``. The message keeps ``formalmarket:<code>``
  for logs only.
- ``market_place_order`` re-checks its arguments (side, price, quantity: ``FM012``; fee rate,
  proceeds account kind, hold window, USD switch: ``FM013``), and answers a retried client
  order id (the same order again) with that order's row and a new OUT argument ``o_replay``,
  before the book's lock and with nothing written.
- The durable procedures answer a refusal and a replay after a WAL flush inside the same CALL
  (one round trip; ``orders.py`` ran a second statement for it, and a third to read the
  replayed order).

A new OUT argument changes the function's and the procedure's result types, which
``CREATE OR REPLACE`` cannot do: both are dropped and created again, and lose 0013's grants,
which are made again here. Frozen copies in ``sql/0016_*.sql``; the texts they replace in
``sql/0016_*_before.sql``, for going back.
"""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).resolve().parent / "sql"
# Frozen copies, loaded in this order: (forward, backward).
FILES = (
    ("0016_place_order.sql", "0016_place_order_before.sql"),
    ("0016_place_order_durable.sql", "0016_place_order_durable_before.sql"),
    ("0016_cancel_order.sql", "0016_cancel_order_before.sql"),
    ("0016_cancel_order_durable.sql", "0016_cancel_order_durable_before.sql"),
)
# Their result types change: dropped before being created again (either way).
DROP = """
DROP PROCEDURE public.market_place_order_durable;
DROP FUNCTION public.market_place_order;
"""
GRANTS_SQL = """
SELECT p.prokind, p.oid::regprocedure::text FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'public' AND p.proname IN ('market_place_order', 'market_place_order_durable')
"""


def _load(names: tuple[str, ...], schema_editor) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(DROP)
        for name in names:
            cursor.execute((SQL / name).read_text())
        # As migration 0013: nobody but the application's role may call the engine.
        cursor.execute(GRANTS_SQL)
        for kind, signature in cursor.fetchall():
            routine = "PROCEDURE" if kind == "p" else "FUNCTION"
            cursor.execute(f"REVOKE EXECUTE ON {routine} {signature} FROM PUBLIC")
            cursor.execute(f"GRANT EXECUTE ON {routine} {signature} TO CURRENT_USER")


def forward(apps, schema_editor):
    _load(tuple(forward for forward, _ in FILES), schema_editor)


def backward(apps, schema_editor):
    _load(tuple(backward for _, backward in FILES), schema_editor)


class Migration(migrations.Migration):
    dependencies = [("market", "0015_one_open_ask_per_solution")]

    operations = [migrations.RunPython(forward, backward)]
