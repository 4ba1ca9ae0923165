
-- The user accounts (owner, kind) of one currency, created when missing and then locked in
-- ascending id order. Missing accounts are created first, in ascending (owner, kind) order,
-- before any account is locked: a new account holds its unique-index entry until commit, so
-- creating one while holding account locks could close a cycle with another transaction.
CREATE OR REPLACE FUNCTION market_lock_user_accounts(
    p_currency text, p_owners integer[], p_kinds text[],
    OUT ids bigint[], OUT keys text[], OUT balances bigint[]
) LANGUAGE plpgsql AS $$
DECLARE
    -- Simple statements, one per account: each is planned once per session (a statement
    -- over unnest() of the arrays was planned afresh on every call and cost ten times more).
    found_id bigint;
    missing integer[] := '{}';
    missing_kinds text[] := '{}';
    key text;
    i integer;
    j integer;
    t_id bigint;
    t_key text;
BEGIN
    ids := '{}';
    keys := '{}';
    FOR i IN 1..cardinality(p_owners) LOOP
        key := p_owners[i] || ':' || p_kinds[i];
        CONTINUE WHEN key = ANY (keys) OR key = ANY (missing_kinds);
        SELECT a.id INTO found_id FROM market_account a
        WHERE a.owner_id = p_owners[i] AND a.currency = p_currency AND a.kind = p_kinds[i];
        IF found_id IS NULL THEN
            missing := missing || p_owners[i];
            missing_kinds := missing_kinds || key;
        ELSE
            ids := ids || found_id;
            keys := keys || key;
        END IF;
    END LOOP;
    IF cardinality(missing) > 0 THEN
        -- Before any account is locked, in ascending (owner, kind) order.
        INSERT INTO market_account (owner_id, currency, kind, balance_minor)
        SELECT m.owner_id, p_currency, split_part(m.key, ':', 2), 0
        FROM unnest(missing, missing_kinds) AS m(owner_id, key)
        ORDER BY m.owner_id, split_part(m.key, ':', 2) COLLATE "C"
        ON CONFLICT DO NOTHING;
        FOR i IN 1..cardinality(missing) LOOP
            SELECT a.id INTO STRICT found_id FROM market_account a
            WHERE a.owner_id = missing[i] AND a.currency = p_currency
              AND a.kind = split_part(missing_kinds[i], ':', 2);
            ids := ids || found_id;
            keys := keys || missing_kinds[i];
        END LOOP;
    END IF;
    -- Ascending id order (an insertion sort: a placement has a handful of accounts).
    FOR i IN 2..cardinality(ids) LOOP
        t_id := ids[i];
        t_key := keys[i];
        j := i - 1;
        WHILE j >= 1 AND ids[j] > t_id LOOP
            ids[j + 1] := ids[j];
            keys[j + 1] := keys[j];
            j := j - 1;
        END LOOP;
        ids[j + 1] := t_id;
        keys[j + 1] := t_key;
    END LOOP;
    balances := '{}';
    FOR i IN 1..cardinality(ids) LOOP
        SELECT a.balance_minor INTO STRICT found_id FROM market_account a WHERE a.id = ids[i]
        FOR UPDATE;
        balances := balances || found_id;
    END LOOP;
END;
$$;

-- The platform's fee account of a currency (a system account: never locked, never updated;
-- its balance is the sum of its postings), made on first use.
CREATE OR REPLACE FUNCTION market_fees_account(p_currency text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    found_id bigint;
BEGIN
    SELECT a.id INTO found_id FROM market_account a
    WHERE a.owner_id IS NULL AND a.currency = p_currency AND a.kind = 'fees';
    IF found_id IS NULL THEN
        INSERT INTO market_account (owner_id, currency, kind, balance_minor)
        VALUES (NULL, p_currency, 'fees', 0) ON CONFLICT DO NOTHING;
        SELECT a.id INTO found_id FROM market_account a
        WHERE a.owner_id IS NULL AND a.currency = p_currency AND a.kind = 'fees';
    END IF;
    RETURN found_id;
END;
$$;

-- Write a placement's postings, in (transaction, account) order, and apply them to the user
-- balances among p_user_accounts (locked by the caller). System accounts are not updated.
CREATE OR REPLACE FUNCTION market_write_postings(
    p_currency text, p_txns bigint[], p_accounts bigint[], p_amounts bigint[],
    p_user_accounts bigint[], p_deltas bigint[]
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    i integer;
BEGIN
    -- In the order the caller added them: a transaction's legs follow its creation.
    FOR i IN 1..cardinality(p_txns) LOOP
        INSERT INTO market_posting (transaction_id, account_id, currency, amount_minor)
        VALUES (p_txns[i], p_accounts[i], p_currency, p_amounts[i]);
    END LOOP;
    -- The user balances (locked by the caller, ascending id): the sum of their postings here.
    FOR i IN 1..cardinality(p_user_accounts) LOOP
        IF p_deltas[i] <> 0 THEN
            UPDATE market_account SET balance_minor = balance_minor + p_deltas[i]
            WHERE id = p_user_accounts[i];
        END IF;
    END LOOP;
END;
$$;

-- Place a bid (p_solution NULL) or an ask: match it by price-time priority, then rest what is
-- left. Returns the order's row. When the owner already used p_client_order_id, it refuses
-- with 'formalmarket:replay' and that order's id (the caller compares the two orders).
CREATE OR REPLACE FUNCTION market_place_order(
    p_owner integer, p_problem bigint, p_side text, p_price bigint, p_currency text,
    p_quantity integer, p_solution bigint, p_client_order_id text,
    p_usd_allowed boolean, p_fee_bps integer, p_proceeds_kind text,
    p_hold_window interval, p_debt_currency text,
    OUT o_id bigint, OUT o_remaining integer, OUT o_status text,
    OUT o_created_at timestamptz, OUT o_closed_at timestamptz, OUT o_is_demo boolean,
    OUT o_notified integer[]
) LANGUAGE plpgsql AS $$
DECLARE
    v_now timestamptz;
    v_problem record;
    v_solution_status text;
    r record;
    -- The plan: one element per fill, in the order the fills happen.
    f_resting bigint[] := '{}';
    f_buyer integer[] := '{}';
    f_seller integer[] := '{}';
    f_solution bigint[] := '{}';
    f_price bigint[] := '{}';      -- the maker's (resting order's) price: the trade's price
    f_bid_price bigint[] := '{}';  -- what the bid held per copy
    taken bigint[] := '{}';        -- solutions (incoming bid) or buyers (incoming ask) filled
    n integer := 0;
    seen integer;
    last_price bigint;
    last_id bigint;
    -- Accounts, locked: parallel arrays keyed by 'owner:kind'.
    k_owners integer[] := '{}';
    k_kinds text[] := '{}';
    a_ids bigint[];
    a_keys text[];
    a_bal bigint[];
    a_delta bigint[];             -- what the postings add to each locked balance
    a_pos jsonb;
    fees_id bigint;
    page refcursor;
    -- Ledger rows to write at the end.
    post_txns bigint[] := '{}';
    post_accounts bigint[] := '{}';
    post_amounts bigint[] := '{}';
    e_trades bigint[] := '{}';
    i integer;
    i_avail integer;
    i_held integer;
    i_debt integer;
    i_seller integer;
    amount bigint;
    hold bigint;
    fee bigint;
    txn bigint;
    trade bigint;
    bid_id bigint;
    ask_id bigint;
BEGIN
    -- 1. The problem's row lock serialises its book. Taken by bumping the book's sequence (a
    --    refusal rolls the bump back): an UPDATE that changes no key column locks the row FOR
    --    NO KEY UPDATE, so rows that merely reference the problem (a submitted solution, say)
    --    are not blocked, and one statement does what a lock and a later update did.
    UPDATE market_problem AS p SET book_sequence = p.book_sequence + 1
    WHERE p.id = p_problem
    RETURNING p.id, p.status, p.currency, p.is_demo INTO v_problem;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'formalmarket:no-such-problem';
    END IF;
    v_now := clock_timestamp();  -- the placement's instant: once its book is ours
    -- 2. A client order id already used: the unique constraint and the lock make this final
    --    for this problem (another problem's concurrent use is caught at the INSERT).
    IF p_client_order_id IS NOT NULL THEN
        SELECT o.id INTO o_id FROM market_order o
        WHERE o.owner_id = p_owner AND o.client_order_id = p_client_order_id;
        IF FOUND THEN
            RAISE EXCEPTION 'formalmarket:replay' USING DETAIL = o_id;
        END IF;
    END IF;
    -- 3. Preconditions.
    IF v_problem.status <> 'published' THEN
        RAISE EXCEPTION 'formalmarket:not-tradable' USING DETAIL = v_problem.status;
    END IF;
    IF p_currency <> v_problem.currency THEN
        RAISE EXCEPTION 'formalmarket:currency-mismatch' USING DETAIL = v_problem.currency;
    END IF;
    IF v_problem.currency = 'USD' AND NOT p_usd_allowed THEN
        RAISE EXCEPTION 'formalmarket:usd-disabled';
    END IF;
    IF p_side = 'ask' THEN
        SELECT s.status INTO v_solution_status FROM market_solution s
        WHERE s.id = p_solution AND s.solver_id = p_owner AND s.problem_id = p_problem;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'formalmarket:no-such-solution';
        END IF;
        IF v_solution_status <> 'accepted' THEN
            RAISE EXCEPTION 'formalmarket:solution-not-accepted' USING DETAIL = v_solution_status;
        END IF;
    END IF;

    -- 4. The plan. Crossing orders best first (the partial indexes order_book_asks and
    --    order_book_bids, in pages of 64, each row fetched only when needed), passing over
    --    those the owner may not trade with: another currency, the owner's own, a buyer who
    --    owns the solution, and within this placement a second copy of one solution (bid)
    --    or a second bid of one buyer (ask). Passed-over orders keep their place.
    LOOP
        seen := 0;
        IF p_side = 'bid' AND last_id IS NULL THEN
            OPEN page FOR
                SELECT o.id, o.owner_id, o.solution_id, o.price_minor FROM market_order o
                WHERE o.problem_id = p_problem AND o.status = 'open' AND o.side = 'ask'
                  AND o.price_minor <= p_price
                  AND o.currency = p_currency AND o.owner_id <> p_owner
                  AND NOT EXISTS (SELECT 1 FROM market_entitlement e
                                  WHERE e.user_id = p_owner AND e.solution_id = o.solution_id)
                ORDER BY o.price_minor, o.id
                LIMIT 64;
        ELSIF p_side = 'bid' THEN
            OPEN page FOR  -- the next page: strictly after the last row seen
                SELECT o.id, o.owner_id, o.solution_id, o.price_minor FROM market_order o
                WHERE o.problem_id = p_problem AND o.status = 'open' AND o.side = 'ask'
                  AND o.price_minor <= p_price AND (o.price_minor, o.id) > (last_price, last_id)
                  AND o.currency = p_currency AND o.owner_id <> p_owner
                  AND NOT EXISTS (SELECT 1 FROM market_entitlement e
                                  WHERE e.user_id = p_owner AND e.solution_id = o.solution_id)
                ORDER BY o.price_minor, o.id
                LIMIT 64;
        ELSIF last_id IS NULL THEN
            OPEN page FOR
                SELECT o.id, o.owner_id, o.solution_id, o.price_minor FROM market_order o
                WHERE o.problem_id = p_problem AND o.status = 'open' AND o.side = 'bid'
                  AND o.price_minor >= p_price
                  AND o.currency = p_currency AND o.owner_id <> p_owner
                  AND NOT EXISTS (SELECT 1 FROM market_entitlement e
                                  WHERE e.user_id = o.owner_id AND e.solution_id = p_solution)
                ORDER BY o.price_minor DESC, o.id
                LIMIT 64;
        ELSE
            OPEN page FOR
                SELECT o.id, o.owner_id, o.solution_id, o.price_minor FROM market_order o
                WHERE o.problem_id = p_problem AND o.status = 'open' AND o.side = 'bid'
                  AND o.price_minor >= p_price AND o.price_minor <= last_price
                  AND (o.price_minor < last_price OR o.id > last_id)
                  AND o.currency = p_currency AND o.owner_id <> p_owner
                  AND NOT EXISTS (SELECT 1 FROM market_entitlement e
                                  WHERE e.user_id = o.owner_id AND e.solution_id = p_solution)
                ORDER BY o.price_minor DESC, o.id
                LIMIT 64;
        END IF;
        LOOP
            FETCH page INTO r;
            EXIT WHEN NOT FOUND;
            seen := seen + 1;
            last_price := r.price_minor;
            last_id := r.id;
            IF p_side = 'bid' THEN
                CONTINUE WHEN r.solution_id = ANY (taken);
                taken := taken || r.solution_id;
                n := n + 1;
                f_buyer[n] := p_owner;
                f_seller[n] := r.owner_id;
                f_solution[n] := r.solution_id;
                f_bid_price[n] := p_price;
            ELSE
                CONTINUE WHEN r.owner_id = ANY (taken);
                taken := taken || r.owner_id::bigint;
                n := n + 1;
                f_buyer[n] := r.owner_id;
                f_seller[n] := p_owner;
                f_solution[n] := p_solution;
                f_bid_price[n] := r.price_minor;
            END IF;
            f_resting[n] := r.id;
            f_price[n] := r.price_minor;
            EXIT WHEN n = p_quantity;
        END LOOP;
        CLOSE page;
        -- Read on only when this page was full and the order is not.
        EXIT WHEN n = p_quantity OR seen < 64;
    END LOOP;

    -- 5. The order, with what the plan leaves of it. Its id is its time priority, taken
    --    under the problem's lock. When the owner used p_client_order_id concurrently on
    --    another problem, the INSERT does nothing and the placement is answered as a replay.
    o_remaining := p_quantity - n;
    o_status := CASE WHEN n = p_quantity THEN 'filled' ELSE 'open' END;
    o_created_at := v_now;
    o_closed_at := CASE WHEN n = p_quantity THEN v_now END;
    o_is_demo := v_problem.is_demo;
    INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency, quantity,
                              remaining, status, solution_id, client_order_id, created_at,
                              closed_at)
    VALUES (p_problem, p_owner, p_side, p_price, p_currency, p_quantity, o_remaining, o_status,
            p_solution, p_client_order_id, v_now, o_closed_at)
    ON CONFLICT (owner_id, client_order_id) WHERE client_order_id IS NOT NULL DO NOTHING
    RETURNING id INTO o_id;
    IF o_id IS NULL THEN
        SELECT o.id INTO STRICT o_id FROM market_order o
        WHERE o.owner_id = p_owner AND o.client_order_id = p_client_order_id;
        RAISE EXCEPTION 'formalmarket:replay' USING DETAIL = o_id;
    END IF;

    -- 6. The accounts, locked in ascending id order once the fills are known: a bidder's
    --    available and held (and debt where it exists), per fill the buyer's available and
    --    held and the seller's proceeds account. The fee account (a system account, never
    --    locked) is fetched, or made, first: nothing is created while accounts are locked.
    IF n > 0 THEN
        fees_id := market_fees_account(p_currency);
    END IF;
    IF p_side = 'bid' THEN
        k_owners := ARRAY[p_owner, p_owner];
        k_kinds := ARRAY['available', 'held'];
        IF p_currency = p_debt_currency THEN
            k_owners := k_owners || p_owner;
            k_kinds := k_kinds || 'debt'::text;
        END IF;
    END IF;
    FOR i IN 1..n LOOP
        k_owners := k_owners || ARRAY[f_buyer[i], f_buyer[i], f_seller[i]];
        k_kinds := k_kinds || ARRAY['available', 'held', p_proceeds_kind];
    END LOOP;
    IF cardinality(k_owners) > 0 THEN
        SELECT l.ids, l.keys, l.balances INTO a_ids, a_keys, a_bal
        FROM market_lock_user_accounts(p_currency, k_owners, k_kinds) AS l;
        a_delta := array_fill(0::bigint, ARRAY[cardinality(a_ids)]);
        -- 'owner:kind' -> position in a_ids (a jsonb object: a lookup is a binary search).
        SELECT jsonb_object_agg(t.key, t.pos) INTO a_pos
        FROM unnest(a_keys) WITH ORDINALITY AS t(key, pos);
    END IF;

    -- 7. A bid repays the owner's debt from available first, then holds price x quantity.
    IF p_side = 'bid' THEN
        i_avail := (a_pos ->> (p_owner || ':available'))::integer;
        i_held := (a_pos ->> (p_owner || ':held'))::integer;
        IF p_currency = p_debt_currency THEN
            i_debt := (a_pos ->> (p_owner || ':debt'))::integer;
            amount := least(a_bal[i_avail], -a_bal[i_debt]);
            IF amount > 0 THEN
                INSERT INTO market_ledgertransaction (kind, currency, memo, idempotency_key,
                                                      created_at)
                VALUES ('debt_settle', p_currency, 'debt repaid by user ' || p_owner, NULL, v_now)
                RETURNING id INTO txn;
                post_txns := post_txns || ARRAY[txn, txn];
                post_accounts := post_accounts || ARRAY[a_ids[i_avail], a_ids[i_debt]];
                post_amounts := post_amounts || ARRAY[-amount, amount];
                a_delta[i_avail] := a_delta[i_avail] - amount;
                a_delta[i_debt] := a_delta[i_debt] + amount;
                a_bal[i_avail] := a_bal[i_avail] - amount;
            END IF;
        END IF;
        hold := p_price * p_quantity;
        IF a_bal[i_avail] < hold THEN
            RAISE EXCEPTION 'formalmarket:insufficient-funds'
                USING DETAIL = hold || ' ' || a_bal[i_avail];
        END IF;
        INSERT INTO market_ledgertransaction (kind, currency, memo, idempotency_key, created_at)
        VALUES ('bid_hold', p_currency, 'hold for bid ' || o_id, NULL, v_now)
        RETURNING id INTO txn;
        post_txns := post_txns || ARRAY[txn, txn];
        post_accounts := post_accounts || ARRAY[a_ids[i_avail], a_ids[i_held]];
        post_amounts := post_amounts || ARRAY[-hold, hold];
        a_delta[i_avail] := a_delta[i_avail] - hold;
        a_delta[i_held] := a_delta[i_held] + hold;
    END IF;

    -- 8. The fills: a trade at the maker's price. The bid held its own price per copy; the
    --    seller gets the price less the fee (rounded down), the platform the fee, and the
    --    buyer's held is released of the bid's price, the improvement going back to them.
    FOR i IN 1..n LOOP
        fee := f_price[i] * p_fee_bps / 10000;
        IF p_side = 'bid' THEN
            bid_id := o_id;
            ask_id := f_resting[i];
        ELSE
            bid_id := f_resting[i];
            ask_id := o_id;
        END IF;
        INSERT INTO market_ledgertransaction (kind, currency, memo, idempotency_key, created_at)
        VALUES ('trade', p_currency,
                left('solution ' || f_solution[i] || ': bid ' || bid_id || ' x ask ' || ask_id,
                     200),
                NULL, v_now)
        RETURNING id INTO txn;
        i_held := (a_pos ->> (f_buyer[i] || ':held'))::integer;
        post_txns := post_txns || txn;
        post_accounts := post_accounts || a_ids[i_held];
        post_amounts := post_amounts || -f_bid_price[i];
        a_delta[i_held] := a_delta[i_held] - f_bid_price[i];
        IF f_price[i] - fee <> 0 THEN
            i_seller := (a_pos ->> (f_seller[i] || ':' || p_proceeds_kind))::integer;
            post_txns := post_txns || txn;
            post_accounts := post_accounts || a_ids[i_seller];
            post_amounts := post_amounts || (f_price[i] - fee);
            a_delta[i_seller] := a_delta[i_seller] + (f_price[i] - fee);
        END IF;
        IF fee <> 0 THEN
            post_txns := post_txns || txn;
            post_accounts := post_accounts || fees_id;
            post_amounts := post_amounts || fee;
        END IF;
        IF f_bid_price[i] <> f_price[i] THEN
            i_avail := (a_pos ->> (f_buyer[i] || ':available'))::integer;
            post_txns := post_txns || txn;
            post_accounts := post_accounts || a_ids[i_avail];
            post_amounts := post_amounts || (f_bid_price[i] - f_price[i]);
            a_delta[i_avail] := a_delta[i_avail] + (f_bid_price[i] - f_price[i]);
        END IF;
        INSERT INTO market_trade (problem_id, bid_id, ask_id, buyer_id, seller_id, solution_id,
                                  price_minor, fee_minor, currency, maker_side,
                                  ledger_transaction_id, created_at)
        VALUES (p_problem, bid_id, ask_id, f_buyer[i], f_seller[i], f_solution[i], f_price[i],
                fee, p_currency, CASE WHEN p_side = 'bid' THEN 'ask' ELSE 'bid' END, txn, v_now)
        RETURNING id INTO trade;
        e_trades := e_trades || trade;
        IF p_hold_window IS NOT NULL AND f_price[i] - fee > 0 THEN
            -- USD proceeds wait in PENDING for their hold window (market.payments).
            INSERT INTO payments_proceedshold (user_id, trade_id, amount_minor, currency,
                                               available_at, release_transaction_id,
                                               released_at)
            VALUES (f_seller[i], trade, f_price[i] - fee, p_currency, v_now + p_hold_window,
                    NULL, NULL);
        END IF;
        UPDATE market_order AS o
        SET remaining = o.remaining - 1,
            status = CASE WHEN o.remaining = 1 THEN 'filled' ELSE o.status END,
            closed_at = CASE WHEN o.remaining = 1 THEN v_now ELSE o.closed_at END
        WHERE o.id = f_resting[i];
    END LOOP;

    -- 9. The rest of the rows: the postings, the user balances (system accounts are not
    --    updated), the buyers' entitlements.
    IF cardinality(post_txns) > 0 THEN
        PERFORM market_write_postings(p_currency, post_txns, post_accounts, post_amounts, a_ids,
                                      a_delta);
    END IF;
    IF n > 0 THEN
        INSERT INTO market_entitlement (user_id, solution_id, trade_id, created_at)
        SELECT x.buyer, x.solution, x.trade, v_now
        FROM unnest(f_buyer, f_solution, e_trades) AS x(buyer, solution, trade);
    END IF;
    o_notified := f_buyer || f_seller;
END;
$$;

-- Cancel the owner's open order: release exactly a bid's remaining hold (then repay debt
-- from it). Returns the order's row as it now is.
CREATE OR REPLACE FUNCTION market_cancel_order(
    p_owner integer, p_order bigint, p_debt_currency text,
    OUT o_problem_id bigint, OUT o_side text, OUT o_price bigint, OUT o_currency text,
    OUT o_quantity integer, OUT o_remaining integer, OUT o_solution_id bigint,
    OUT o_client_order_id text, OUT o_created_at timestamptz, OUT o_closed_at timestamptz
) LANGUAGE plpgsql AS $$
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
    -- in market_place_order): missing == not yours.
    UPDATE market_problem AS p SET book_sequence = p.book_sequence + 1
    WHERE p.id = (SELECT o.problem_id FROM market_order o
                  WHERE o.id = p_order AND o.owner_id = p_owner);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'formalmarket:no-such-order';
    END IF;
    v_now := clock_timestamp();
    -- Read under the problem's lock: every change of an order takes it first.
    SELECT * INTO v_order FROM market_order o WHERE o.id = p_order;
    IF v_order.status <> 'open' THEN
        RAISE EXCEPTION 'formalmarket:order-not-open' USING DETAIL = v_order.status;
    END IF;
    IF v_order.side = 'bid' THEN
        k_owners := ARRAY[p_owner, p_owner];
        k_kinds := ARRAY['available', 'held'];
        IF v_order.currency = p_debt_currency THEN
            k_owners := k_owners || p_owner;
            k_kinds := k_kinds || 'debt'::text;
        END IF;
        SELECT l.ids, l.keys, l.balances INTO a_ids, a_keys, a_bal
        FROM market_lock_user_accounts(v_order.currency, k_owners, k_kinds) AS l;
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
        PERFORM market_write_postings(v_order.currency, post_txns, post_accounts, post_amounts,
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
$$;
