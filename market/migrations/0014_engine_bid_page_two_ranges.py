"""An ask reads the next page of bids with two range scans, not one scan with an OR.

Issue 29, section 2. ``market_place_order`` walks the bids crossing an incoming ask in pages
of 64 (price DESC, id). Its next-page query filtered ``price < last_price OR id > last_id``:
the index scan started again at the top of ``last_price``'s run on every page, so an ask that
passes over one buyer's n bids at one price read about n^2 / 128 index entries (the
adversarial book of ``bench/orders.py``: minutes at n = 50 000). Now the page is the rest of
``last_price``'s run (``id > last_id``) followed by the lower prices, two range scans of
``order_book_bids`` joined by UNION ALL. And from the second page on, either side passes
over in the scan what the placement's loop would skip anyway (a solution a bid already
fills, a buyer an ask already fills): such a row costs an index entry and a heap check, not
a PL/pgSQL FETCH. Nothing else changes: the same fills in the same order (the differential
test holds it to the naive matcher; tests/market/test_book_pages.py crosses page boundaries).

The function's text is a frozen copy in ``sql/0014_place_order.sql`` (and the text it
replaces in ``sql/0014_place_order_before.sql``, for going back): a later change writes a new
file and a new migration. ``CREATE OR REPLACE`` resets a function's settings, so the file
states all of them: the generic plans of 0006, ``enable_seqscan = off`` of 0010 and the
``search_path`` of 0013_engine_search_path (whose EXECUTE grants survive a replace).
"""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).resolve().parent / "sql"


def _run(name: str, schema_editor) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute((SQL / name).read_text())


def forward(apps, schema_editor):
    _run("0014_place_order.sql", schema_editor)


def backward(apps, schema_editor):
    _run("0014_place_order_before.sql", schema_editor)


class Migration(migrations.Migration):
    dependencies = [("market", "0013_engine_search_path")]

    operations = [migrations.RunPython(forward, backward)]
