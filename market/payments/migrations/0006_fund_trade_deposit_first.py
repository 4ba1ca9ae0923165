"""A trade spends the buyer's deposit lots before their proceeds lots (issue 27).

The balance split (``services/buckets.py``) counts every spending as drawn on the deposit part
first; the trade trigger of 0004 consumed lots oldest first whatever their source. A seller
whose proceeds had matured could deposit money of their own, spend it, and see the purchase
consume the proceeds lot while the split still called the proceeds withdrawable: the
withdrawal then recorded no funding, and a chargeback of the buyer who paid those proceeds
could not ask the transfer back (a full loss). Deposit lots first (oldest first among them),
then proceeds lots, keeps the lots in step with the split. The function keeps the pinned
``search_path`` of market 0013 (``CREATE OR REPLACE`` would otherwise drop it).
"""

from django.db import migrations

_FUNCTION = """
CREATE OR REPLACE FUNCTION payments_fund_trade() RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
DECLARE
    due bigint := NEW.price_minor;
    lot record;
    part bigint;
BEGIN
    FOR lot IN
        SELECT id, remaining_minor FROM public.payments_fundslot
        WHERE user_id = NEW.buyer_id AND remaining_minor > 0
        ORDER BY {order}
        FOR UPDATE
    LOOP
        EXIT WHEN due <= 0;
        part := LEAST(lot.remaining_minor, due);
        UPDATE public.payments_fundslot SET remaining_minor = remaining_minor - part
        WHERE id = lot.id;
        INSERT INTO public.payments_tradefunding (trade_id, lot_id, amount_minor, reversed_minor)
        VALUES (NEW.id, lot.id, part, 0);
        due := due - part;
    END LOOP;
    RETURN NULL;
END
$$;
"""

# Deposit lots first (this migration), or oldest first whatever the source (0004, going back).
FUNCTION = _FUNCTION.format(order="(source = 'deposit') DESC, id")
OLDEST_FIRST = _FUNCTION.format(order="id")


def forward(apps, schema_editor):
    schema_editor.execute(FUNCTION)


def backward(apps, schema_editor):
    schema_editor.execute(OLDEST_FIRST)


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0005_transfer_reversals"),
        ("market", "0014_engine_bid_page_two_ranges"),
    ]

    operations = [migrations.RunPython(forward, backward)]
