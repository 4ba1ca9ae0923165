"""A solution is sold at most 100 times (issue 29, section 2): the sales limit.

An ask on solution S walks the crossing bids best first and passes over those whose buyer
already owns S; no index can skip that set (it depends on the ask's solution), so a solution
bought by N buyers who each kept a bid on the problem made every ask on it read N bids under
the book's lock (12.6 ms at N = 36, 404 ms at N = 50 000). Now an ask is refused when the
copies of its solution already sold plus the ask's quantity exceed 100
(``market:sales-limit``, SQLSTATE FM018, DETAIL ``sold``, ``limit``, ``max_quantity``). Sold
is counted from the solution's trades (one per buyer), up to 101, by one probe of the index
on ``market_trade (solution_id)`` (the foreign key's own index: none is added). A fill moves
one copy from the ask's remaining to sold, and a solution has one open ask (0015), so sold +
that ask's remaining stays within 100 and an ask's walk passes at most 99 bids of the
solution's owners. The bid side's twin is 0019 (the solution limit).

Existing data: an open ask whose solution's sold + remaining exceeds 100 is cancelled
through the engine's own ``engine.cancel_order`` (an ask holds no money: it closes the order
and bumps the book's sequence, as the seller's cancel would; ``USD`` is the engine's
``DEBT_CURRENCY``, frozen here as in 0017 and 0019). Sales above 100 made before this rule
stay (trades are never undone); asks on such a solution are refused.

The function's text is a frozen copy in ``sql/0021_place_order.sql`` (0020's with the check
above); going back restores 0020's (``sql/0021_place_order_before.sql``); cancelled asks
stay cancelled.
"""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).resolve().parent / "sql"

# One open ask per solution (0015): each over-limit solution has one ask to cancel. The cancels
# run one by one in id order, each through the engine's cancel (its own lock of the problem).
CANCEL_OVER_LIMIT_ASKS = """
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT o.id, o.owner_id FROM market_order o
        WHERE o.side = 'ask' AND o.status = 'open'
          AND o.remaining + (SELECT count(*) FROM market_trade t
                             WHERE t.solution_id = o.solution_id) > 100
        ORDER BY o.id
    LOOP
        PERFORM engine.cancel_order(r.owner_id, r.id, 'USD');
    END LOOP;
END
$$;
"""


def _run(name: str, schema_editor) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute((SQL / name).read_text())


def forward(apps, schema_editor):
    _run("0021_place_order.sql", schema_editor)


def backward(apps, schema_editor):
    _run("0021_place_order_before.sql", schema_editor)


class Migration(migrations.Migration):
    dependencies = [("market", "0020_engine_schema")]

    operations = [
        migrations.RunSQL(CANCEL_OVER_LIMIT_ASKS, migrations.RunSQL.noop),
        migrations.RunPython(forward, backward),
    ]
