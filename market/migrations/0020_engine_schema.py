"""The engine's routines live in a schema of their own: ``engine.place_order`` (issue 29, §4).

Until now every routine of the engine and of the triggers sat in ``public`` beside the tables,
told apart by a prefix (``market_place_order``, ``activity_trade_events``,
``payments_fund_trade``). Now the sixteen of them (enumerated in ``market/sql/engine/``, one
file per routine, held equal to the database by tests/market/test_engine_sql.py) are
``engine.<name>``, the ``market_`` and ``payments_`` prefixes dropped (``engine.place_order``,
``engine.write_postings``, ``engine.fund_trade``), ``activity_`` kept where it says whose
trigger it is (``engine.activity_trade_events``). Tables stay in ``public``, and so does
each routine's ``SET search_path = public, pg_temp``; every call between routines is
qualified (``engine.write_postings(...)``), so the schema need not be on any search path.

How (``sql/0020_engine.sql``, a frozen copy): ``CREATE SCHEMA engine``, no privilege on it for
PUBLIC and USAGE for the application's role (the role that runs the migrations, as in 0013);
each routine moved with ``ALTER ROUTINE ... SET SCHEMA engine`` and renamed, so it keeps its
oid (the triggers that run it follow it: they name a function by oid, not by name) and its
privileges (EXECUTE revoked from PUBLIC, granted to the application's role by 0013, said once
more at the end); then ``CREATE OR REPLACE`` with the new text, whose only change is the
qualified names. Backward (``sql/0020_engine_before.sql``): renamed and moved back, the texts
of 0019 restored, the schema dropped.

Depends on the last migrations of payments and activity: each of them may have replaced one
of these routines in ``public`` by name.
"""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).resolve().parent / "sql"


def _run(name: str, schema_editor) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute((SQL / name).read_text())


def forward(apps, schema_editor):
    _run("0020_engine.sql", schema_editor)


def backward(apps, schema_editor):
    _run("0020_engine_before.sql", schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("market", "0019_solution_limit"),
        ("activity", "0006_sale_event_kinds"),
        ("payments", "0008_transfer_reversal_withheld"),
    ]

    operations = [migrations.RunPython(forward, backward)]
