-- The CALL orders.py makes for a cancel: as engine.place_order_durable, a refusal too.
CREATE OR REPLACE PROCEDURE engine.cancel_order_durable(IN p_owner integer, IN p_order bigint, IN p_debt_currency text, IN p_token text, OUT o_problem_id bigint, OUT o_side text, OUT o_price bigint, OUT o_currency text, OUT o_quantity integer, OUT o_remaining integer, OUT o_solution_id bigint, OUT o_client_order_id text, OUT o_created_at timestamp with time zone, OUT o_closed_at timestamp with time zone, OUT o_durable_lsn pg_lsn)
 LANGUAGE plpgsql
AS $procedure$
DECLARE
    busy boolean;
    r_state text;
    r_message text;
    r_detail text;
BEGIN
    BEGIN
        SELECT * INTO o_problem_id, o_side, o_price, o_currency, o_quantity, o_remaining,
                      o_solution_id, o_client_order_id, o_created_at, o_closed_at
        FROM engine.cancel_order(p_owner, p_order, p_debt_currency);
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS r_state = RETURNED_SQLSTATE, r_message = MESSAGE_TEXT,
                                r_detail = PG_EXCEPTION_DETAIL;
        IF r_state NOT LIKE 'FM%' THEN
            RAISE;
        END IF;
    END;
    IF r_state IS NOT NULL THEN
        -- A refusal: answered after a flush (see engine.place_order_durable).
        o_durable_lsn := pg_catalog.pg_logical_emit_message(true, 'formalmarket.durable', '');
        COMMIT;
        RAISE EXCEPTION USING ERRCODE = r_state, MESSAGE = r_message, DETAIL = r_detail;
    END IF;
    -- o_closed_at: the instant the lock was held
    busy := engine.book_was_busy(o_closed_at);
    IF busy THEN
        PERFORM pg_catalog.set_config('synchronous_commit', 'off', true);
    END IF;
    PERFORM pg_catalog.set_config('formalmarket.committed',
                                  coalesce(p_token, '') || ':' || p_order, false);
    -- This transaction only: the checks deferred to its COMMIT plan index probes too
    -- (migration 0010).
    PERFORM pg_catalog.set_config('enable_seqscan', 'off', true);
    COMMIT;
    -- The answer waits for the flush (see engine.place_order_durable).
    IF busy THEN
        o_durable_lsn := pg_catalog.pg_logical_emit_message(true, 'formalmarket.durable', '');
    END IF;
END;
$procedure$;
