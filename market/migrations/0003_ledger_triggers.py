"""Database-level guards that Python code cannot bypass (PostgreSQL only).

- Each ledger transaction's postings sum to zero per currency, checked at commit by a
  deferred constraint trigger, and a posting's currency is its account's and its
  transaction's.
- Postings and ledger transactions are immutable: no UPDATE, no DELETE.
- An ask can only be inserted for the owner's own ACCEPTED solution of the same problem.

PostgreSQL is the only engine (issue 26 removed SQLite): these triggers always apply.
"""

from django.db import migrations

FORWARD = r"""
CREATE OR REPLACE FUNCTION market_posting_check_balanced() RETURNS trigger AS $$
DECLARE
    unbalanced record;
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM market_account a JOIN market_ledgertransaction t ON t.id = NEW.transaction_id
        WHERE a.id = NEW.account_id AND a.currency = NEW.currency AND t.currency = NEW.currency
    ) THEN
        RAISE EXCEPTION 'posting % mixes currencies', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    SELECT currency, SUM(amount_minor) AS total INTO unbalanced
    FROM market_posting WHERE transaction_id = NEW.transaction_id
    GROUP BY currency HAVING SUM(amount_minor) <> 0 LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger transaction % does not balance in %: %',
            NEW.transaction_id, unbalanced.currency, unbalanced.total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER market_posting_balanced
    AFTER INSERT ON market_posting
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION market_posting_check_balanced();

CREATE OR REPLACE FUNCTION market_ledger_immutable() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER market_posting_immutable
    BEFORE UPDATE OR DELETE ON market_posting
    FOR EACH ROW EXECUTE FUNCTION market_ledger_immutable();
CREATE TRIGGER market_ledgertransaction_immutable
    BEFORE UPDATE OR DELETE ON market_ledgertransaction
    FOR EACH ROW EXECUTE FUNCTION market_ledger_immutable();

CREATE OR REPLACE FUNCTION market_order_check_ask() RETURNS trigger AS $$
BEGIN
    IF NEW.side = 'ask' AND NOT EXISTS (
        SELECT 1 FROM market_solution s
        WHERE s.id = NEW.solution_id AND s.solver_id = NEW.owner_id
          AND s.problem_id = NEW.problem_id AND s.status = 'accepted'
    ) THEN
        RAISE EXCEPTION 'an ask needs the owner''s own ACCEPTED solution of the problem'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER market_order_ask_accepted
    BEFORE INSERT ON market_order
    FOR EACH ROW EXECUTE FUNCTION market_order_check_ask();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS market_order_ask_accepted ON market_order;
DROP FUNCTION IF EXISTS market_order_check_ask();
DROP TRIGGER IF EXISTS market_ledgertransaction_immutable ON market_ledgertransaction;
DROP TRIGGER IF EXISTS market_posting_immutable ON market_posting;
DROP FUNCTION IF EXISTS market_ledger_immutable();
DROP TRIGGER IF EXISTS market_posting_balanced ON market_posting;
DROP FUNCTION IF EXISTS market_posting_check_balanced();
"""


def forward(apps, schema_editor):
    # A plain cursor: the SQL has literal % signs (plpgsql RAISE) and no parameters.
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FORWARD)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("market", "0002_initial")]

    operations = [migrations.RunPython(forward, backward)]
