"""Self-trade prevention and one open bid per buyer and problem (issue 29, section 2).

Two orders that cannot trade used to rest in the book and be passed over by every placement
that met them, under the book's lock: a seller's bid walked over its own N asks, an ask
walked over one buyer's N bids (a buyer buys a solution once). Now:

- an order that would cross one of its owner's own open orders on the same problem is
  refused (``market:self-trade``, naming the resting order: cancel it first), checked with
  one index probe before the walk, so the walk never meets the owner's own orders;
- a buyer has at most one open bid per problem (a bid already has a quantity): a second is
  refused (``market:bid-already-open``, naming the open bid: cancel it and place another to
  change the price or the quantity), backed by the partial unique index
  ``order_one_open_bid_per_buyer``.

Existing data: where a buyer has several open bids on one problem, the oldest (smallest id:
best time priority) stays open and the others are cancelled through the engine's own
``market_cancel_order`` (bids hold money: each cancel releases exactly the bid's remaining
hold, with balanced ledger postings, repays USD debt from it and bumps the book's sequence,
as the buyer's own cancel would). The debt currency is USD, the engine's
``DEBT_CURRENCY`` when this migration was written (frozen here, as the SQL is). One
user's crossing bid and ask, which the old engine let rest side by side, are left as they
are: they never trade with each other, and the new checks only refuse new orders.

The function's text is a frozen copy in ``sql/0017_place_order.sql`` (0016's with the two
checks above; their refusals are SQLSTATEs FM015 and FM016 with a JSON DETAIL, as 0016 made
every refusal); going back restores 0016's (``sql/0016_place_order.sql``) and drops the
indexes; cancelled bids stay cancelled.
"""

from pathlib import Path

from django.db import migrations, models
from django.db.models import F, Q

SQL = Path(__file__).resolve().parent / "sql"

# Oldest first within each buyer and problem; the cancels run one by one in id order, each
# through the engine's cancel (its own lock of the problem and of the buyer's accounts).
CANCEL_EXTRA_BIDS = """
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT o.id, o.owner_id FROM market_order o
        WHERE o.side = 'bid' AND o.status = 'open'
          AND EXISTS (SELECT 1 FROM market_order older
                      WHERE older.owner_id = o.owner_id AND older.problem_id = o.problem_id
                        AND older.side = 'bid' AND older.status = 'open'
                        AND older.id < o.id)
        ORDER BY o.id
    LOOP
        PERFORM market_cancel_order(r.owner_id, r.id, 'USD');
    END LOOP;
END
$$;
-- The ledger's deferred checks (balanced transactions) run now, not at the migration's
-- commit: the index below is built on a table with no pending trigger events.
SET CONSTRAINTS ALL IMMEDIATE;
"""


def _run(name: str, schema_editor) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute((SQL / name).read_text())


def forward(apps, schema_editor):
    _run("0017_place_order.sql", schema_editor)


def backward(apps, schema_editor):
    _run("0016_place_order.sql", schema_editor)


class Migration(migrations.Migration):
    dependencies = [("market", "0016_engine_sqlstates")]

    operations = [
        migrations.RunSQL(CANCEL_EXTRA_BIDS, migrations.RunSQL.noop),
        migrations.AddConstraint(
            model_name="order",
            constraint=models.UniqueConstraint(
                fields=["owner", "problem"],
                condition=Q(status="open", side="bid"),
                name="order_one_open_bid_per_buyer",
            ),
        ),
        migrations.AddIndex(
            model_name="order",
            index=models.Index(
                F("owner"),
                F("problem"),
                F("price_minor"),
                F("id"),
                condition=Q(status="open", side="ask"),
                name="order_open_asks_by_owner",
            ),
        ),
        migrations.RunPython(forward, backward),
    ]
