"""Every engine routine runs with a pinned ``search_path`` and is not executable by PUBLIC.

Issue 29, section 4. Until this migration the engine's functions and trigger functions
resolved their table and function names through the caller's ``search_path``: a session
whose path put another schema (or ``pg_temp``, searched first for tables by default) before
``public`` could make the engine read or write tables of its choosing. Now:

1. Every function in ``public`` named ``market_*``, ``activity_*`` or ``payments_*`` (the
   engine, its helpers and the ledger's, activity's and payments' trigger functions,
   enumerated from ``pg_proc`` here, so none is forgotten) gets ``SET search_path = public,
   pg_temp``: ``pg_temp`` last, so a temporary table cannot shadow one of ours.
2. The two durable procedures cannot carry a ``SET`` clause: PostgreSQL refuses COMMIT in a
   procedure that has one, and these commit in their body (migration 0008). They reference
   no table, only the engine's functions and built-ins; they are re-created here with the
   same text (0008's, plus the line of 0010) but every function of ours schema-qualified
   (``public.market_place_order``). Built-ins resolve in ``pg_catalog`` first, and a
   temporary schema is never searched for functions.
3. ``REVOKE EXECUTE ... FROM PUBLIC`` on every one of those routines, and ``GRANT EXECUTE``
   to the role that runs the migration (the application's role: the same role owns the
   tables and connects, docs/market.md, "Engine SQL hardening"). Triggers fire whatever the
   privilege; only direct calls are refused to other roles.

``CREATE OR REPLACE`` resets a function's ``SET`` clauses and keeps its privileges: a later
migration that replaces an engine function must say ``SET search_path = public, pg_temp``
again. tests/market/test_engine_sql.py checks every such routine in ``pg_proc``.
"""

from django.db import migrations

# The routines of ours in public, with their identity arguments: (kind, signature).
ROUTINES_SQL = r"""
SELECT p.prokind, p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')'
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'public'
  AND (p.proname LIKE 'market\_%' OR p.proname LIKE 'activity\_%'
       OR p.proname LIKE 'payments\_%')
  AND p.prokind IN ('f', 'p')
ORDER BY p.proname
"""

# 0008's procedures with 0010's line, the engine's functions qualified (see point 2 above).
PROCEDURES = r"""
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
    FROM public.market_place_order(p_owner, p_problem, p_side, p_price, p_currency, p_quantity,
                                   p_solution, p_client_order_id, p_usd_allowed, p_fee_bps,
                                   p_proceeds_kind, p_hold_window, p_debt_currency);
    -- o_created_at is the instant the book's lock was held.
    busy := public.market_book_was_busy(o_created_at);
    IF busy THEN
        -- This transaction only: its COMMIT releases the book without waiting for the disk.
        PERFORM pg_catalog.set_config('synchronous_commit', 'off', true);
    END IF;
    -- A session setting made in this transaction: it survives only if the COMMIT does, so
    -- after an error the caller can tell whether the placement committed (orders.py).
    PERFORM pg_catalog.set_config('formalmarket.committed',
                                  coalesce(p_token, '') || ':' || o_id, false);
    -- This transaction only: the checks deferred to its COMMIT plan index probes too
    -- (migration 0010).
    PERFORM pg_catalog.set_config('enable_seqscan', 'off', true);
    COMMIT;
    -- The answer waits for the flush: this transaction's synchronous COMMIT (at the end of
    -- the CALL) flushes the WAL up to its own record, past the placement's commit.
    IF busy THEN
        o_durable_lsn := pg_catalog.pg_logical_emit_message(true, 'formalmarket.durable', '');
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
    FROM public.market_cancel_order(p_owner, p_order, p_debt_currency);
    -- o_closed_at: the instant the lock was held
    busy := public.market_book_was_busy(o_closed_at);
    IF busy THEN
        PERFORM pg_catalog.set_config('synchronous_commit', 'off', true);
    END IF;
    PERFORM pg_catalog.set_config('formalmarket.committed',
                                  coalesce(p_token, '') || ':' || p_order, false);
    -- This transaction only: the checks deferred to its COMMIT plan index probes too
    -- (migration 0010).
    PERFORM pg_catalog.set_config('enable_seqscan', 'off', true);
    COMMIT;
    -- The answer waits for the flush (see market_place_order_durable).
    IF busy THEN
        o_durable_lsn := pg_catalog.pg_logical_emit_message(true, 'formalmarket.durable', '');
    END IF;
END;
$$;
"""


def _routines(cursor) -> list[tuple[str, str]]:
    cursor.execute(ROUTINES_SQL)
    return cursor.fetchall()


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(PROCEDURES)
        for kind, signature in _routines(cursor):
            routine = "PROCEDURE" if kind == "p" else "FUNCTION"
            if kind == "f":
                cursor.execute(f"ALTER FUNCTION {signature} SET search_path = public, pg_temp")
            cursor.execute(f"REVOKE EXECUTE ON {routine} {signature} FROM PUBLIC")
            cursor.execute(f"GRANT EXECUTE ON {routine} {signature} TO CURRENT_USER")


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for kind, signature in _routines(cursor):
            routine = "PROCEDURE" if kind == "p" else "FUNCTION"
            if kind == "f":
                cursor.execute(f"ALTER FUNCTION {signature} RESET search_path")
            cursor.execute(f"GRANT EXECUTE ON {routine} {signature} TO PUBLIC")
        # The procedures' qualified names resolve as the unqualified ones did: no need to
        # restore 0010's text.


class Migration(migrations.Migration):
    dependencies = [
        ("market", "0012_reversals_account"),
        ("activity", "0006_sale_event_kinds"),
        ("payments", "0005_transfer_reversals"),
    ]

    operations = [migrations.RunPython(forward, backward)]
