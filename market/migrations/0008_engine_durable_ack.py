"""The book's lock is released at COMMIT, before the WAL flush; the answer still waits for it.

Until this migration a placement's COMMIT waited for its WAL flush while it still held the
problem's row lock: on one busy book every placement queued behind the previous one's disk
write (a WAL flush is 0.13-0.3 ms here). The two procedures below call the engine functions
of migrations 0005/0006 unchanged, and then, when the call had to wait for its book (others
are then likely queued behind it; ``market_book_was_busy``):

1. The placement's own transaction commits with ``synchronous_commit = off`` (for that
   transaction only): COMMIT writes the commit record into the WAL and releases the book's
   lock at once, so the next placement on the book starts while the disk is written.
2. Then, in a second transaction of the same call, a WAL record is written
   (``pg_logical_emit_message``, a transactional message: it gives the transaction an id and
   WAL to flush) and that transaction commits with the session's own ``synchronous_commit``
   (``on`` by default): its COMMIT waits until the WAL is flushed up to its own commit
   record, which lies after the placement's. Only then does the CALL return.

On a book nobody waited for, the placement commits synchronously, as before this migration:
a second transaction and a second flush would cost more than they save there (8 clients on
8 books: 7-14 % fewer placements per second, measured).

So the caller is answered only when the placement is durable, as before: an acknowledged
placement never vanishes in a crash. WAL is replayed in order, so a crash loses a suffix of
commits: a placement and everything that saw it and committed after it, or nothing. What
changes: another session may read a placement for the time of one WAL flush before it is
durable. ``market.services.orders`` closes the two ways that reading could reach a caller
of the engine itself:

- a refusal (a replayed client order id, an order already filled, ...) may have been decided
  on a placement not yet flushed: before answering one, orders.py runs the same flush barrier;
- an error raised after the COMMIT (a query cancel or statement timeout between the two
  transactions) would report a committed placement as failed: each CALL passes a fresh token,
  which the placement's transaction stores in a session setting (``formalmarket.committed``,
  kept only if that transaction commits); after an error orders.py reads it, flushes, and
  answers the committed placement.

With a synchronous standby configured (``synchronous_standby_names``) the placement commits
synchronously as before: turning it off would also skip the standby's acknowledgement, and
others could read a placement the standby does not have yet.

Each CALL must be its own statement and its own transaction (autocommit, no pipelining, no
batching): a CALL that commits cannot run inside a caller's transaction block, and
``market.services.orders`` calls the plain functions there (tests, a caller's ``atomic``).

``o_durable_lsn`` is the end of the flushed message, the position up to which the WAL was
flushed before the answer, when the book was released before its flush; NULL when the call
committed synchronously (tests/market/test_durable_ack.py checks both against the server).
docs/market.md ("Commit and answer") has the argument in full.
"""

from django.db import migrations

FORWARD = r"""
-- Whether a call that holds its book since p_locked_at should release it at COMMIT, before
-- the WAL flush: when it waited for the book (more than 0.25 ms from the CALL's start to
-- holding the lock, where an idle book takes tens of microseconds), others are likely
-- queued behind it. Never with a synchronous standby (the module's docstring says why).
CREATE OR REPLACE FUNCTION market_book_was_busy(p_locked_at timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT p_locked_at - statement_timestamp() > interval '250 microseconds'
           AND current_setting('synchronous_standby_names') = ''
$$;

CREATE OR REPLACE PROCEDURE market_place_order_durable(
    p_owner integer, p_problem bigint, p_side text, p_price bigint, p_currency text,
    p_quantity integer, p_solution bigint, p_client_order_id text,
    p_usd_allowed boolean, p_fee_bps integer, p_proceeds_kind text,
    p_hold_window interval, p_debt_currency text, p_token text,
    OUT o_id bigint, OUT o_remaining integer, OUT o_status text,
    OUT o_created_at timestamptz, OUT o_closed_at timestamptz, OUT o_is_demo boolean,
    OUT o_notified integer[], OUT o_durable_lsn pg_lsn
) LANGUAGE plpgsql AS $$
DECLARE
    busy boolean;
BEGIN
    SELECT * INTO o_id, o_remaining, o_status, o_created_at, o_closed_at, o_is_demo, o_notified
    FROM market_place_order(p_owner, p_problem, p_side, p_price, p_currency, p_quantity,
                            p_solution, p_client_order_id, p_usd_allowed, p_fee_bps,
                            p_proceeds_kind, p_hold_window, p_debt_currency);
    -- o_created_at is the instant the book's lock was held.
    busy := market_book_was_busy(o_created_at);
    IF busy THEN
        -- This transaction only: its COMMIT releases the book without waiting for the disk.
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    -- A session setting made in this transaction: it survives only if the COMMIT does, so
    -- after an error the caller can tell whether the placement committed (orders.py).
    PERFORM set_config('formalmarket.committed', coalesce(p_token, '') || ':' || o_id, false);
    COMMIT;
    -- The answer waits for the flush: this transaction's synchronous COMMIT (at the end of
    -- the CALL) flushes the WAL up to its own record, past the placement's commit.
    IF busy THEN
        o_durable_lsn := pg_logical_emit_message(true, 'formalmarket.durable', '');
    END IF;
END;
$$;

CREATE OR REPLACE PROCEDURE market_cancel_order_durable(
    p_owner integer, p_order bigint, p_debt_currency text, p_token text,
    OUT o_problem_id bigint, OUT o_side text, OUT o_price bigint, OUT o_currency text,
    OUT o_quantity integer, OUT o_remaining integer, OUT o_solution_id bigint,
    OUT o_client_order_id text, OUT o_created_at timestamptz, OUT o_closed_at timestamptz,
    OUT o_durable_lsn pg_lsn
) LANGUAGE plpgsql AS $$
DECLARE
    busy boolean;
BEGIN
    SELECT * INTO o_problem_id, o_side, o_price, o_currency, o_quantity, o_remaining,
                  o_solution_id, o_client_order_id, o_created_at, o_closed_at
    FROM market_cancel_order(p_owner, p_order, p_debt_currency);
    busy := market_book_was_busy(o_closed_at);  -- o_closed_at: the instant the lock was held
    IF busy THEN
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    PERFORM set_config('formalmarket.committed', coalesce(p_token, '') || ':' || p_order, false);
    COMMIT;
    -- The answer waits for the flush (see market_place_order_durable).
    IF busy THEN
        o_durable_lsn := pg_logical_emit_message(true, 'formalmarket.durable', '');
    END IF;
END;
$$;
"""

BACKWARD = r"""
DROP FUNCTION IF EXISTS market_book_was_busy(timestamptz);
DROP PROCEDURE IF EXISTS market_cancel_order_durable(integer, bigint, text, text);
DROP PROCEDURE IF EXISTS market_place_order_durable(
    integer, bigint, text, bigint, text, integer, bigint, text, boolean, integer, text,
    interval, text, text);
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FORWARD)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("market", "0007_drop_covered_fk_indexes")]

    operations = [migrations.RunPython(forward, backward)]
