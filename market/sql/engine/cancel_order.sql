-- Cancel the owner's open order: release exactly a bid's remaining hold (then repay debt
-- from it). Returns the order's row as it now is. (Body of migration 0005; settings of
-- 0010 and 0013; refusals as SQLSTATEs of class FM with a JSON DETAIL, 0016.)
CREATE OR REPLACE FUNCTION engine.cancel_order(p_owner integer, p_order bigint, p_debt_currency text, OUT o_problem_id bigint, OUT o_side text, OUT o_price bigint, OUT o_currency text, OUT o_quantity integer, OUT o_remaining integer, OUT o_solution_id bigint, OUT o_client_order_id text, OUT o_created_at timestamp with time zone, OUT o_closed_at timestamp with time zone)
 RETURNS record
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
    v_now timestamptz;
    v_order record;
    k_owners integer[];
    k_kinds text[];
    a_ids bigint[];
    a_keys text[];
    a_bal bigint[];
    a_delta bigint[];
    i_avail integer;
    i_held integer;
    i_debt integer;
    amount bigint;
    debt bigint;
    txn bigint;
    post_txns bigint[] := '{}';
    post_accounts bigint[] := '{}';
    post_amounts bigint[] := '{}';
BEGIN
    -- One statement finds the order's problem and locks it, bumping the book's sequence (as
    -- in engine.place_order): missing == not yours.
    UPDATE market_problem AS p SET book_sequence = p.book_sequence + 1
    WHERE p.id = (SELECT o.problem_id FROM market_order o
                  WHERE o.id = p_order AND o.owner_id = p_owner);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'formalmarket:no-such-order' USING ERRCODE = 'FM002',
            DETAIL = json_build_object('order_id', p_order)::text;
    END IF;
    v_now := clock_timestamp();
    -- Read under the problem's lock: every change of an order takes it first.
    SELECT * INTO v_order FROM market_order o WHERE o.id = p_order;
    IF v_order.status <> 'open' THEN
        RAISE EXCEPTION 'formalmarket:order-not-open' USING ERRCODE = 'FM004',
            DETAIL = json_build_object('status', v_order.status)::text;
    END IF;
    IF v_order.side = 'bid' THEN
        k_owners := ARRAY[p_owner, p_owner];
        k_kinds := ARRAY['available', 'held'];
        IF v_order.currency = p_debt_currency THEN
            k_owners := k_owners || p_owner;
            k_kinds := k_kinds || 'debt'::text;
        END IF;
        SELECT l.ids, l.keys, l.balances INTO a_ids, a_keys, a_bal
        FROM engine.lock_user_accounts(v_order.currency, k_owners, k_kinds) AS l;
        i_avail := array_position(a_keys, p_owner || ':available');
        i_held := array_position(a_keys, p_owner || ':held');
        amount := v_order.price_minor * v_order.remaining;
        INSERT INTO market_ledgertransaction (kind, currency, memo, idempotency_key, created_at)
        VALUES ('bid_release', v_order.currency, 'cancel bid ' || p_order, NULL, v_now)
        RETURNING id INTO txn;
        post_txns := ARRAY[txn, txn];
        post_accounts := ARRAY[a_ids[i_held], a_ids[i_avail]];
        post_amounts := ARRAY[-amount, amount];
        a_delta := array_fill(0::bigint, ARRAY[cardinality(a_ids)]);
        a_delta[i_held] := -amount;
        a_delta[i_avail] := amount;
        IF v_order.currency = p_debt_currency THEN
            -- After the release: the repayment spends what it freed.
            i_debt := array_position(a_keys, p_owner || ':debt');
            debt := least(a_bal[i_avail] + amount, -a_bal[i_debt]);
            IF debt > 0 THEN
                INSERT INTO market_ledgertransaction (kind, currency, memo, idempotency_key,
                                                      created_at)
                VALUES ('debt_settle', v_order.currency, 'debt repaid by user ' || p_owner,
                        NULL, v_now)
                RETURNING id INTO txn;
                post_txns := post_txns || ARRAY[txn, txn];
                post_accounts := post_accounts || ARRAY[a_ids[i_avail], a_ids[i_debt]];
                post_amounts := post_amounts || ARRAY[-debt, debt];
                a_delta[i_avail] := a_delta[i_avail] - debt;
                a_delta[i_debt] := a_delta[i_debt] + debt;
            END IF;
        END IF;
        PERFORM engine.write_postings(v_order.currency, post_txns, post_accounts, post_amounts,
                                      a_ids, a_delta);
    END IF;
    UPDATE market_order AS o SET status = 'cancelled', closed_at = v_now WHERE o.id = p_order;
    o_problem_id := v_order.problem_id;
    o_side := v_order.side;
    o_price := v_order.price_minor;
    o_currency := v_order.currency;
    o_quantity := v_order.quantity;
    o_remaining := v_order.remaining;
    o_solution_id := v_order.solution_id;
    o_client_order_id := v_order.client_order_id;
    o_created_at := v_order.created_at;
    o_closed_at := v_now;
END;
$function$;
