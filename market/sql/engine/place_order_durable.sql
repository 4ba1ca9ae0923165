-- The CALL orders.py makes for a placement in autocommit: the placement commits (without
-- waiting for the WAL flush when its book was busy), then the answer waits for the flush
-- (migration 0008; docs/market.md, "Commit and answer"). No SET clause: a procedure that
-- has one cannot COMMIT, so every routine of ours is schema-qualified (engine.*, migration
-- 0020; public.* before it, 0013).
-- A refusal (SQLSTATE class FM) and a replay are answered after a flush too, in this same
-- CALL (migration 0016): a transaction that wrote one WAL record commits synchronously
-- before the refusal is raised again or the replayed order returned. The placement runs in
-- a block with a handler (a subtransaction) for that: a transaction cannot end inside one.
CREATE OR REPLACE PROCEDURE engine.place_order_durable(IN p_owner integer, IN p_problem bigint, IN p_side text, IN p_price bigint, IN p_currency text, IN p_quantity integer, IN p_solution bigint, IN p_client_order_id text, IN p_usd_allowed boolean, IN p_fee_bps integer, IN p_proceeds_kind text, IN p_hold_window interval, IN p_debt_currency text, IN p_token text, OUT o_id bigint, OUT o_remaining integer, OUT o_status text, OUT o_created_at timestamp with time zone, OUT o_closed_at timestamp with time zone, OUT o_is_demo boolean, OUT o_notified integer[], OUT o_replay boolean, OUT o_durable_lsn pg_lsn)
 LANGUAGE plpgsql
AS $procedure$
DECLARE
    busy boolean;
    r_state text;
    r_message text;
    r_detail text;
BEGIN
    BEGIN
        SELECT * INTO o_id, o_remaining, o_status, o_created_at, o_closed_at, o_is_demo,
                      o_notified, o_replay
        FROM engine.place_order(p_owner, p_problem, p_side, p_price, p_currency,
                                p_quantity, p_solution, p_client_order_id,
                                p_usd_allowed, p_fee_bps, p_proceeds_kind,
                                p_hold_window, p_debt_currency);
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS r_state = RETURNED_SQLSTATE, r_message = MESSAGE_TEXT,
                                r_detail = PG_EXCEPTION_DETAIL;
        IF r_state NOT LIKE 'FM%' THEN
            RAISE;
        END IF;
    END;
    IF r_state IS NOT NULL OR o_replay THEN
        -- Decided, maybe, on another placement committed but not yet flushed (the order a
        -- replay names, the funds a refusal counts): flush past it before answering. This
        -- transaction's synchronous COMMIT flushes the WAL up to its own record.
        o_durable_lsn := pg_catalog.pg_logical_emit_message(true, 'formalmarket.durable', '');
        COMMIT;
        IF r_state IS NOT NULL THEN
            RAISE EXCEPTION USING ERRCODE = r_state, MESSAGE = r_message, DETAIL = r_detail;
        END IF;
        RETURN;
    END IF;
    -- o_created_at is the instant the book's lock was held.
    busy := engine.book_was_busy(o_created_at);
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
$procedure$;
