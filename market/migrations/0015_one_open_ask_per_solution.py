"""One open ask per solution (issue 29, section 2): an ask sells any number of copies.

A seller used to be able to rest N asks of one solution: every bid that could not trade with
them (the seller's own, a buyer who already owns the solution, a bid already filled by one
copy) passed over all N, under the book's lock. An ask has a quantity, so a second open ask
on the same solution adds nothing a user needs: the engine now refuses it
(``market:ask-already-open``, which names the open ask: cancel it and place another to
change the price or the quantity), and a partial unique index backs the rule.

Existing data: where a solution has several open asks, the oldest (the smallest id: it has
the best time priority) stays open and the others are cancelled, as their seller could have
done. An ask holds nothing, so nothing is released; the problem's ``book_sequence`` is
bumped, as every change of a book does. Going back drops the index and restores 0014's
function; the cancelled asks stay cancelled.

The function's text is a frozen copy in ``sql/0015_place_order.sql`` (0014's with the new
precondition); ``sql/0014_place_order.sql`` is the text it replaces.
"""

from pathlib import Path

from django.db import migrations, models
from django.db.models import Q

SQL = Path(__file__).resolve().parent / "sql"

CANCEL_EXTRA_ASKS = """
WITH extra AS (
    SELECT o.id, o.problem_id FROM market_order o
    WHERE o.side = 'ask' AND o.status = 'open'
      AND EXISTS (SELECT 1 FROM market_order older
                  WHERE older.solution_id = o.solution_id AND older.side = 'ask'
                    AND older.status = 'open' AND older.id < o.id)
), cancelled AS (
    UPDATE market_order AS o SET status = 'cancelled', closed_at = clock_timestamp()
    FROM extra WHERE o.id = extra.id
    RETURNING o.problem_id
)
UPDATE market_problem AS p SET book_sequence = p.book_sequence + 1
WHERE p.id IN (SELECT problem_id FROM cancelled)
"""


def _run(name: str, schema_editor) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute((SQL / name).read_text())


def forward(apps, schema_editor):
    _run("0015_place_order.sql", schema_editor)


def backward(apps, schema_editor):
    _run("0014_place_order.sql", schema_editor)


class Migration(migrations.Migration):
    dependencies = [("market", "0014_engine_bid_page_two_ranges")]

    operations = [
        migrations.RunSQL(CANCEL_EXTRA_ASKS, migrations.RunSQL.noop),
        migrations.AddConstraint(
            model_name="order",
            constraint=models.UniqueConstraint(
                fields=["solution"],
                condition=Q(status="open", side="ask"),
                name="order_one_open_ask_per_solution",
            ),
        ),
        migrations.RunPython(forward, backward),
    ]
