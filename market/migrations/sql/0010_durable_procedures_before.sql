
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
