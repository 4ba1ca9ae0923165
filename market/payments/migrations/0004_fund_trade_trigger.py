"""Funds provenance on the engine's trades: which of the buyer's lots paid for each USD trade.

The matching engine writes trades in PL/pgSQL (market migrations 0005-0010), so the funding
is recorded by a trigger on its INSERT, in the same statement and transaction as the trade:
the buyer's unspent lots are consumed oldest first (FIFO) for the trade's price. The buyer's
accounts are already locked by the engine at that point, and every other writer of lots
(deposits, refunds, disputes, withdrawals) holds the owner's AVAILABLE lock too, so the lot
row locks taken here never wait in a cycle. A price larger than the buyer's lots (USD that
entered before lots existed) leaves the rest unfunded: nothing to trace.
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION payments_fund_trade() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    due bigint := NEW.price_minor;
    lot record;
    part bigint;
BEGIN
    FOR lot IN
        SELECT id, remaining_minor FROM payments_fundslot
        WHERE user_id = NEW.buyer_id AND remaining_minor > 0
        ORDER BY id
        FOR UPDATE
    LOOP
        EXIT WHEN due <= 0;
        part := LEAST(lot.remaining_minor, due);
        UPDATE payments_fundslot SET remaining_minor = remaining_minor - part WHERE id = lot.id;
        INSERT INTO payments_tradefunding (trade_id, lot_id, amount_minor, reversed_minor)
        VALUES (NEW.id, lot.id, part, 0);
        due := due - part;
    END LOOP;
    RETURN NULL;
END
$$;
CREATE TRIGGER payments_fund_trade AFTER INSERT ON market_trade
FOR EACH ROW WHEN (NEW.currency = 'USD') EXECUTE FUNCTION payments_fund_trade();
"""

REVERSE = """
DROP TRIGGER IF EXISTS payments_fund_trade ON market_trade;
DROP FUNCTION IF EXISTS payments_fund_trade();
"""


def forward(apps, schema_editor):
    schema_editor.execute(FUNCTION)


def backward(apps, schema_editor):
    schema_editor.execute(REVERSE)


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0003_funds_provenance"),
        ("market", "0011_losses_account"),
    ]

    operations = [migrations.RunPython(forward, backward)]
