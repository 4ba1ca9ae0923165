"""At most 100 solutions of one problem per buyer (issue 29, section 2).

A bid walks the crossing asks best first and passes over those whose solution its buyer
already holds; no index can skip that set (it depends on who bids), so a buyer who had bought
N solutions of a problem made each of their bids read N asks under the book's lock (4.6 ms at
N = 36, 148 ms at N = 50 000). Now a bid is refused when the solutions of the problem its
buyer already holds plus the bid's quantity exceed 100 (``market:solution-limit``, SQLSTATE
FM017, DETAIL ``held``, ``limit``, ``max_quantity``). Held is counted from the buyer's trades
on the problem (one per solution), up to 101, by one probe of the new index
``trade_holdings_by_buyer`` (buyer, problem). A fill moves one copy from the bid's remaining
to held, so held + the one open bid's remaining stays within 100 and a walk passes at most 99
owned asks. The buyer's own accepted solutions do not count: the walk never meets the
owner's own asks (self-trade prevention, migration 0017).

Existing data: an open bid whose buyer's held + remaining exceeds 100 is cancelled through
the engine's own ``market_cancel_order`` (releasing exactly its remaining hold with balanced
postings, repaying USD debt, bumping the book's sequence, as the buyer's cancel would; USD
is the engine's ``DEBT_CURRENCY``, frozen here as in 0017). Holdings above 100 made before
this rule stay (trades are never undone); such a buyer's bids on that problem are refused.

The function's text is a frozen copy in ``sql/0019_place_order.sql`` (0017's with the check
above); going back restores 0017's (``sql/0017_place_order.sql``) and drops the index;
cancelled bids stay cancelled.
"""

from pathlib import Path

from django.db import migrations, models

SQL = Path(__file__).resolve().parent / "sql"

# One open bid per buyer and problem (0017): each over-limit pair has one bid to cancel. The
# cancels run one by one in id order, each through the engine's cancel (its own lock of the
# problem and of the buyer's accounts).
CANCEL_OVER_LIMIT_BIDS = """
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT o.id, o.owner_id FROM market_order o
        WHERE o.side = 'bid' AND o.status = 'open'
          AND o.remaining + (SELECT count(*) FROM market_trade t
                             WHERE t.buyer_id = o.owner_id
                               AND t.problem_id = o.problem_id) > 100
        ORDER BY o.id
    LOOP
        PERFORM market_cancel_order(r.owner_id, r.id, 'USD');
    END LOOP;
END
$$;
-- The ledger's deferred checks (balanced transactions) run now, not at the migration's
-- commit: the index below is built on tables with no pending trigger events.
SET CONSTRAINTS ALL IMMEDIATE;
"""


def _run(name: str, schema_editor) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute((SQL / name).read_text())


def forward(apps, schema_editor):
    _run("0019_place_order.sql", schema_editor)


def backward(apps, schema_editor):
    _run("0017_place_order.sql", schema_editor)


class Migration(migrations.Migration):
    dependencies = [("market", "0018_solution_judged_notify")]

    operations = [
        migrations.RunSQL(CANCEL_OVER_LIMIT_BIDS, migrations.RunSQL.noop),
        migrations.AddIndex(
            model_name="trade",
            index=models.Index(fields=["buyer", "problem"], name="trade_holdings_by_buyer"),
        ),
        migrations.RunPython(forward, backward),
    ]
