"""A solution's verdict wakes whoever waits for it: ``NOTIFY market_solution_judged, '<id>'``.

A row trigger on ``market_solution`` notifies when a solution's status turns final (accepted
or rejected), which happens in the transaction that writes its verdict record
(``market.services.solutions.record_verdict``). PostgreSQL delivers the notification when
that transaction commits, never before and never for one that rolled back; the judge worker
sends no statement more. The web processes' listener (``market.verdict_waits``) wakes the
requests that wait for that solution (``GET /api/v1/solutions/<id>/?wait=<s>``, issue 29).

The function's text is a frozen copy in ``sql/0018_solution_judged_notify.sql``; the live
one is ``market/sql/market_solution_judged_notify.sql``.
"""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).resolve().parent / "sql"

BACKWARD = """
DROP TRIGGER IF EXISTS market_solution_judged_notify ON public.market_solution;
DROP FUNCTION IF EXISTS public.market_solution_judged_notify();
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute((SQL / "0018_solution_judged_notify.sql").read_text())


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("market", "0017_self_trade_and_one_bid")]

    operations = [migrations.RunPython(forward, backward)]
