-- Place a bid (p_solution NULL) or an ask: match it by price-time priority, then rest what is
-- left. Returns the order's row. When the owner already used p_client_order_id for this very
-- order, it returns that order's row with o_replay true, before taking the book's lock and
-- writing nothing; for another order it refuses (FM014); for one placed concurrently it
-- refuses with formalmarket:replay and that order's id (the caller compares the two
-- orders). An
-- ask on a solution that already has an open ask is refused ('formalmarket:ask-already-open',
-- migration 0015; the partial unique index order_one_open_ask_per_solution backs it), a bid
-- from a buyer who has an open bid on the problem ('formalmarket:bid-already-open', migration
-- 0017; the partial unique index order_one_open_bid_per_buyer backs it), and an order that
-- would cross one of its owner's own open orders ('formalmarket:self-trade', migration 0017):
-- so the book's walk never meets the owner's own orders. A bid that would take its buyer
-- past 100 solutions held of the problem ('formalmarket:solution-limit', migration 0019) is
-- refused too: the solutions a buyer holds are the only orders the walk passes over, and
-- held + an open bid's remaining never exceeds 100, so a walk passes at most 99. On the ask
-- side, an ask that would take its solution past 100 copies sold ('formalmarket:sales-limit',
-- migration 0021): the bids of buyers who own the solution are the only orders an ask's walk
-- passes over, and sold + the open ask's remaining never exceeds 100, so at most 99.
-- Refusals: one SQLSTATE of class FM per code and a JSON DETAIL (migration 0016); the table
-- that reads them is market/engine_refusals.py. The arguments are re-checked here whatever
-- the caller checked: the order's own (side, price, quantity: FM012) and the server's policy
-- (fee rate, proceeds account kind, hold window: FM013).
-- Its statements run with generic plans, made once per session: the custom plans that
-- PostgreSQL otherwise makes for the first calls, and keeps making for the book's cursor,
-- cost more to plan than to run (tests/market/test_book_index.py checks the plan), and with
-- enable_seqscan off (migration 0010; docs/market.md says why it stays).
CREATE OR REPLACE FUNCTION engine.place_order(p_owner integer, p_problem bigint, p_side text, p_price bigint, p_currency text, p_quantity integer, p_solution bigint, p_client_order_id text, p_usd_allowed boolean, p_fee_bps integer, p_proceeds_kind text, p_hold_window interval, p_debt_currency text, OUT o_id bigint, OUT o_remaining integer, OUT o_status text, OUT o_created_at timestamp with time zone, OUT o_closed_at timestamp with time zone, OUT o_is_demo boolean, OUT o_notified integer[], OUT o_replay boolean)
 RETURNS record
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
    v_now timestamptz;
    v_problem record;
    v_solution_status text;
    v_open_ask bigint;
    v_replayed record;
    v_open_bid bigint;
    v_crossing bigint;
    v_held integer;
    v_sold integer;
    r record;
    -- The plan: one element per fill, in the order the fills happen.
    f_resting bigint[] := '{}';
    f_buyer integer[] := '{}';
    f_seller integer[] := '{}';
    f_solution bigint[] := '{}';
    f_price bigint[] := '{}';      -- the maker's (resting order's) price: the trade's price
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
    a_idx text[] := '{}';
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
    i_payer integer;
    amount bigint;
    hold bigint;
    fee bigint;
    txn bigint;
    trade bigint;
    bid_id bigint;
    ask_id bigint;
BEGIN
    -- 0. The arguments. The order's own: the API checks them against the settings' caps
    --    (MARKET_MAX_ORDER_QUANTITY, MARKET_MAX_PRICE_MINOR), these are the engine's hard
    --    bounds (market/engine_refusals.py). The policy: the caller passes it from the
    --    settings, the engine bounds it (docs/market.md, "Refusals").
    IF p_side IS NULL OR p_side NOT IN ('bid', 'ask') THEN
        RAISE EXCEPTION 'formalmarket:invalid-order' USING ERRCODE = 'FM012',
            DETAIL = json_build_object('field', 'side')::text;
    END IF;
    IF p_quantity IS NULL OR p_quantity < 1 OR p_quantity > 10000 THEN
        RAISE EXCEPTION 'formalmarket:invalid-order' USING ERRCODE = 'FM012',
            DETAIL = json_build_object('field', 'quantity', 'max', 10000)::text;
    END IF;
    IF p_price IS NULL OR p_price < 1 OR p_price > 1000000000000 THEN
        RAISE EXCEPTION 'formalmarket:invalid-order' USING ERRCODE = 'FM012',
            DETAIL = json_build_object('field', 'price_minor', 'max', 1000000000000)::text;
    END IF;
    IF p_fee_bps IS NULL OR p_fee_bps < 0 OR p_fee_bps > 10000 THEN
        RAISE EXCEPTION 'formalmarket:engine-misconfigured' USING ERRCODE = 'FM013',
            DETAIL = json_build_object('setting', 'MARKET_FEE_BPS')::text;
    END IF;
    IF p_proceeds_kind IS NULL OR p_proceeds_kind NOT IN ('available', 'pending') THEN
        RAISE EXCEPTION 'formalmarket:engine-misconfigured' USING ERRCODE = 'FM013',
            DETAIL = json_build_object('setting', 'proceeds account kind')::text;
    END IF;
    IF p_hold_window < interval '0' OR p_hold_window > interval '366 days' THEN
        RAISE EXCEPTION 'formalmarket:engine-misconfigured' USING ERRCODE = 'FM013',
            DETAIL = json_build_object('setting', 'PROCEEDS_HOLD_WINDOW_S')::text;
    END IF;
    IF p_usd_allowed IS NULL OR p_debt_currency IS NULL THEN
        RAISE EXCEPTION 'formalmarket:engine-misconfigured' USING ERRCODE = 'FM013',
            DETAIL = json_build_object('setting', 'USD switch')::text;
    END IF;
    o_replay := false;
    -- The client order id already used for this very order (a retry): its row, without the
    -- book's lock and with nothing written. Final: an order is never deleted and
    -- (owner_id, client_order_id) is unique. Another order with that id is refused in
    -- step 2, under the lock, after the checks that came before it.
    IF p_client_order_id IS NOT NULL THEN
        SELECT o.id, o.remaining, o.status, o.created_at, o.closed_at, p.is_demo INTO v_replayed
        FROM market_order o JOIN market_problem p ON p.id = o.problem_id
        WHERE o.owner_id = p_owner AND o.client_order_id = p_client_order_id
          AND o.problem_id = p_problem AND o.side = p_side AND o.price_minor = p_price
          AND o.currency = p_currency AND o.quantity = p_quantity
          AND o.solution_id IS NOT DISTINCT FROM p_solution;
        IF FOUND THEN
            o_id := v_replayed.id;
            o_remaining := v_replayed.remaining;
            o_status := v_replayed.status;
            o_created_at := v_replayed.created_at;
            o_closed_at := v_replayed.closed_at;
            o_is_demo := v_replayed.is_demo;
            o_notified := '{}';
            o_replay := true;
            RETURN;
        END IF;
    END IF;
    -- 1. The problem's row lock serialises its book. Taken by bumping the book's sequence (a
    --    refusal rolls the bump back): an UPDATE that changes no key column locks the row FOR
    --    NO KEY UPDATE, so rows that merely reference the problem (a submitted solution, say)
    --    are not blocked, and one statement does what a lock and a later update did.
    UPDATE market_problem AS p SET book_sequence = p.book_sequence + 1
    WHERE p.id = p_problem
    RETURNING p.id, p.status, p.currency, p.is_demo INTO v_problem;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'formalmarket:no-such-problem' USING ERRCODE = 'FM001',
            DETAIL = json_build_object('problem_id', p_problem)::text;
    END IF;
    v_now := clock_timestamp();  -- the placement's instant: once its book is ours
    -- 2. A client order id already used: the unique constraint and the lock make this final
    --    for this problem (another problem's concurrent use is caught at the INSERT). Used
    --    for another order: refused. For this very order (placed since step 0 looked):
    --    'formalmarket:replay', and the caller reads the order.
    IF p_client_order_id IS NOT NULL THEN
        SELECT o.id,
               (o.problem_id = p_problem AND o.side = p_side AND o.price_minor = p_price
                AND o.currency = p_currency AND o.quantity = p_quantity
                AND o.solution_id IS NOT DISTINCT FROM p_solution) AS same
        INTO v_replayed
        FROM market_order o
        WHERE o.owner_id = p_owner AND o.client_order_id = p_client_order_id;
        IF FOUND AND NOT v_replayed.same THEN
            RAISE EXCEPTION 'formalmarket:client-order-id-reused' USING ERRCODE = 'FM014',
                DETAIL = json_build_object('order_id', v_replayed.id)::text;
        END IF;
        IF FOUND THEN
            RAISE EXCEPTION 'formalmarket:replay' USING ERRCODE = 'FM011',
                DETAIL = json_build_object('order_id', v_replayed.id)::text;
        END IF;
    END IF;
    -- 3. Preconditions.
    IF v_problem.status <> 'published' THEN
        RAISE EXCEPTION 'formalmarket:not-tradable' USING ERRCODE = 'FM005',
            DETAIL = json_build_object('status', v_problem.status)::text;
    END IF;
    IF p_currency <> v_problem.currency THEN
        RAISE EXCEPTION 'formalmarket:currency-mismatch' USING ERRCODE = 'FM009',
            DETAIL = json_build_object('currency', v_problem.currency)::text;
    END IF;
    IF v_problem.currency = 'USD' AND NOT p_usd_allowed THEN
        RAISE EXCEPTION 'formalmarket:usd-disabled' USING ERRCODE = 'FM008',
            DETAIL = json_build_object()::text;
    END IF;
    IF p_side = 'ask' THEN
        SELECT s.status INTO v_solution_status FROM market_solution s
        WHERE s.id = p_solution AND s.solver_id = p_owner AND s.problem_id = p_problem;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'formalmarket:no-such-solution' USING ERRCODE = 'FM003',
                DETAIL = json_build_object('solution_id', p_solution)::text;
        END IF;
        IF v_solution_status <> 'accepted' THEN
            RAISE EXCEPTION 'formalmarket:solution-not-accepted' USING ERRCODE = 'FM006',
                DETAIL = json_build_object('status', v_solution_status)::text;
        END IF;
        -- One open ask per solution (and so per seller: an ask's owner is the solution's
        -- solver): an ask already sells any number of copies; to change its price or
        -- quantity the seller cancels it and places another.
        SELECT o.id INTO v_open_ask FROM market_order o
        WHERE o.solution_id = p_solution AND o.side = 'ask' AND o.status = 'open';
        IF FOUND THEN
            RAISE EXCEPTION 'formalmarket:ask-already-open' USING ERRCODE = 'FM007',
                DETAIL = json_build_object('order_id', v_open_ask)::text;
        END IF;
        -- Self-trade prevention: the owner's open bid on this problem (at most one) crosses
        -- this ask when it bids at least the ask's price. One probe of
        -- order_one_open_bid_per_buyer.
        SELECT o.id INTO v_crossing FROM market_order o
        WHERE o.owner_id = p_owner AND o.problem_id = p_problem AND o.side = 'bid'
          AND o.status = 'open' AND o.price_minor >= p_price;
        IF FOUND THEN
            RAISE EXCEPTION 'formalmarket:self-trade' USING ERRCODE = 'FM016',
                DETAIL = json_build_object('order_id', v_crossing)::text;
        END IF;
        -- A solution is sold at most 100 times, counting what this ask may sell:
        -- sold + quantity <= 100. Sold is the solution's trades (one per buyer:
        -- trade_one_copy_per_buyer), counted up to 101 by one bounded probe of the index on
        -- market_trade (solution_id). A fill moves one copy from the ask's remaining to sold,
        -- and a solution has one open ask, so the sum stays within 100 while the ask rests:
        -- its walk passes over at most 99 bids of buyers who own the solution.
        SELECT count(*) INTO v_sold FROM (
            SELECT 1 FROM market_trade t
            WHERE t.solution_id = p_solution
            LIMIT 101) AS s;
        IF v_sold + p_quantity > 100 THEN
            RAISE EXCEPTION 'formalmarket:sales-limit' USING ERRCODE = 'FM018',
                DETAIL = json_build_object('sold', v_sold, 'limit', 100,
                                           'max_quantity', greatest(100 - v_sold, 0))::text;
        END IF;
    ELSE
        -- One open bid per buyer and problem: a bid already buys up to its quantity of
        -- distinct solutions; to change its price or quantity the buyer cancels it (which
        -- releases its hold) and places another.
        SELECT o.id INTO v_open_bid FROM market_order o
        WHERE o.owner_id = p_owner AND o.problem_id = p_problem AND o.side = 'bid'
          AND o.status = 'open';
        IF FOUND THEN
            RAISE EXCEPTION 'formalmarket:bid-already-open' USING ERRCODE = 'FM015',
                DETAIL = json_build_object('order_id', v_open_bid)::text;
        END IF;
        -- Self-trade prevention: the owner's cheapest open ask on this problem crosses this
        -- bid when it asks at most the bid's price. One probe of order_open_asks_by_owner.
        SELECT o.id INTO v_crossing FROM market_order o
        WHERE o.owner_id = p_owner AND o.problem_id = p_problem AND o.side = 'ask'
          AND o.status = 'open' AND o.price_minor <= p_price
        ORDER BY o.price_minor, o.id
        LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'formalmarket:self-trade' USING ERRCODE = 'FM016',
                DETAIL = json_build_object('order_id', v_crossing)::text;
        END IF;
        -- At most 100 solutions of one problem per buyer, counting what this bid may buy:
        -- held + quantity <= 100. Held is the buyer's trades on the problem (one per
        -- solution: trade_one_copy_per_buyer), counted up to 101 by one bounded probe of
        -- trade_holdings_by_buyer. Fills only move a copy from the bid's remaining to held,
        -- so the sum stays within 100 while the bid rests: the walk passes at most 99
        -- solutions the buyer owns, whatever the book's size.
        SELECT count(*) INTO v_held FROM (
            SELECT 1 FROM market_trade t
            WHERE t.buyer_id = p_owner AND t.problem_id = p_problem
            LIMIT 101) AS h;
        IF v_held + p_quantity > 100 THEN
            RAISE EXCEPTION 'formalmarket:solution-limit' USING ERRCODE = 'FM017',
                DETAIL = json_build_object('held', v_held, 'limit', 100,
                                           'max_quantity', greatest(100 - v_held, 0))::text;
        END IF;
    END IF;

    -- 4. The plan. Crossing orders best first (the partial indexes order_book_asks and
    --    order_book_bids, in pages of 64, each row fetched only when needed), passing over
    --    those the owner may not trade with: another currency, a buyer who owns the solution
    --    (an index probe of entitlement_unique per order passed over, in the scan: at most
    --    99 since the solution and sales limits above), and
    --    within this placement a second copy of one solution (bid) or a second bid of one
    --    buyer (ask). Passed-over orders keep their place. The owner's own orders are never
    --    met: one that crosses this order was refused above (self-trade), and the walk reads
    --    only crossing orders.
    LOOP
        seen := 0;
        IF p_side = 'bid' AND last_id IS NULL THEN
            OPEN page FOR
                SELECT o.id, o.owner_id, o.solution_id, o.price_minor FROM market_order o
                WHERE o.problem_id = p_problem AND o.status = 'open' AND o.side = 'ask'
                  AND o.price_minor <= p_price
                  AND o.currency = p_currency
                  AND NOT EXISTS (SELECT 1 FROM market_entitlement e
                                  WHERE e.user_id = p_owner AND e.solution_id = o.solution_id)
                ORDER BY o.price_minor, o.id
                LIMIT 64;
        ELSIF p_side = 'bid' THEN
            OPEN page FOR  -- the next page: strictly after the last row seen
                SELECT o.id, o.owner_id, o.solution_id, o.price_minor FROM market_order o
                WHERE o.problem_id = p_problem AND o.status = 'open' AND o.side = 'ask'
                  AND o.price_minor <= p_price AND (o.price_minor, o.id) > (last_price, last_id)
                  AND o.solution_id <> ALL (taken)  -- a solution this bid already fills
                  AND o.currency = p_currency
                  AND NOT EXISTS (SELECT 1 FROM market_entitlement e
                                  WHERE e.user_id = p_owner AND e.solution_id = o.solution_id)
                ORDER BY o.price_minor, o.id
                LIMIT 64;
        ELSIF last_id IS NULL THEN
            OPEN page FOR
                SELECT o.id, o.owner_id, o.solution_id, o.price_minor FROM market_order o
                WHERE o.problem_id = p_problem AND o.status = 'open' AND o.side = 'bid'
                  AND o.price_minor >= p_price
                  AND o.currency = p_currency
                  AND NOT EXISTS (SELECT 1 FROM market_entitlement e
                                  WHERE e.user_id = o.owner_id AND e.solution_id = p_solution)
                ORDER BY o.price_minor DESC, o.id
                LIMIT 64;
        ELSE
            -- The next page of bids, strictly after (last_price, last_id) in (price DESC, id)
            -- order, as two range scans of order_book_bids: the rest of last_price's run
            -- (id > last_id), then the lower prices. One scan with an OR (price < last_price
            -- OR id > last_id) started again at the top of last_price's run on every page:
            -- an ask passing over one buyer's n bids at one price read n^2 / 128 rows.
            -- UNION ALL appends its branches in order (no sort): the first branch's rows come
            -- first, and the LIMIT stops the second as soon as the page is full.
            -- From the second page on, the buyers this ask already fills are passed over in
            -- the scan (the loop below still skips them within a page): a row the loop
            -- would skip costs an index entry, not a FETCH of PL/pgSQL.
            OPEN page FOR
                (SELECT o.id, o.owner_id, o.solution_id, o.price_minor FROM market_order o
                 WHERE o.problem_id = p_problem AND o.status = 'open' AND o.side = 'bid'
                   AND o.price_minor = last_price AND o.id > last_id
                   AND o.owner_id <> ALL (taken)  -- a buyer this ask already fills
                   AND o.currency = p_currency
                   AND NOT EXISTS (SELECT 1 FROM market_entitlement e
                                   WHERE e.user_id = o.owner_id AND e.solution_id = p_solution)
                 ORDER BY o.price_minor DESC, o.id
                 LIMIT 64)
                UNION ALL
                (SELECT o.id, o.owner_id, o.solution_id, o.price_minor FROM market_order o
                 WHERE o.problem_id = p_problem AND o.status = 'open' AND o.side = 'bid'
                   AND o.price_minor >= p_price AND o.price_minor < last_price
                   AND o.owner_id <> ALL (taken)
                   AND o.currency = p_currency
                   AND NOT EXISTS (SELECT 1 FROM market_entitlement e
                                   WHERE e.user_id = o.owner_id AND e.solution_id = p_solution)
                 ORDER BY o.price_minor DESC, o.id
                 LIMIT 64)
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
            ELSE
                CONTINUE WHEN r.owner_id = ANY (taken);
                taken := taken || r.owner_id::bigint;
                n := n + 1;
                f_buyer[n] := r.owner_id;
                f_seller[n] := p_owner;
                f_solution[n] := p_solution;
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
        RAISE EXCEPTION 'formalmarket:replay' USING ERRCODE = 'FM011',
            DETAIL = json_build_object('order_id', o_id)::text;
    END IF;

    -- 6. The accounts, locked in ascending id order once the fills are known. A bid: its
    --    owner's available (and debt where it exists), held only when part of it rests, and
    --    per fill the seller's proceeds account. An ask: per fill the buyer's held (their
    --    resting bid pays from it) and the owner's proceeds account. The fee account (a
    --    system account, never locked) is fetched, or made, first: nothing is created while
    --    accounts are locked.
    IF n > 0 THEN
        fees_id := engine.fees_account(p_currency);
    END IF;
    IF p_side = 'bid' THEN
        k_owners := ARRAY[p_owner];
        k_kinds := ARRAY['available'];
        IF o_remaining > 0 THEN
            k_owners := k_owners || p_owner;
            k_kinds := k_kinds || 'held'::text;
        END IF;
        IF p_currency = p_debt_currency THEN
            k_owners := k_owners || p_owner;
            k_kinds := k_kinds || 'debt'::text;
        END IF;
        k_owners := k_owners || f_seller;
        k_kinds := k_kinds || array_fill(p_proceeds_kind, ARRAY[n]);
    ELSIF n > 0 THEN
        k_owners := ARRAY[p_owner] || f_buyer;
        k_kinds := ARRAY[p_proceeds_kind] || array_fill('held'::text, ARRAY[n]);
    END IF;
    IF cardinality(k_owners) > 0 THEN
        SELECT l.ids, l.keys, l.balances INTO a_ids, a_keys, a_bal
        FROM engine.lock_user_accounts(p_currency, k_owners, k_kinds) AS l;
        a_delta := array_fill(0::bigint, ARRAY[cardinality(a_ids)]);
        -- 'owner:kind' -> position in a_ids (a jsonb object: a lookup is a binary search),
        -- made with expressions only: no statement.
        FOR i IN 1..cardinality(a_ids) LOOP
            a_idx[i] := i::text;
        END LOOP;
        a_pos := jsonb_object(a_keys, a_idx);
    END IF;

    -- 7. A bid repays the owner's debt from available first; it needs price x quantity
    --    available, and holds price x what rests (what fills at once is paid from available
    --    below: no hold and release of the same money).
    IF p_side = 'bid' THEN
        i_avail := (a_pos ->> (p_owner || ':available'))::integer;
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
        IF a_bal[i_avail] < p_price * p_quantity THEN
            RAISE EXCEPTION 'formalmarket:insufficient-funds' USING ERRCODE = 'FM010',
                DETAIL = json_build_object('needed', p_price * p_quantity,
                                           'available', a_bal[i_avail])::text;
        END IF;
        IF o_remaining > 0 THEN
            hold := p_price * o_remaining;
            i_held := (a_pos ->> (p_owner || ':held'))::integer;
            INSERT INTO market_ledgertransaction (kind, currency, memo, idempotency_key,
                                                  created_at)
            VALUES ('bid_hold', p_currency, 'hold for bid ' || o_id, NULL, v_now)
            RETURNING id INTO txn;
            post_txns := post_txns || ARRAY[txn, txn];
            post_accounts := post_accounts || ARRAY[a_ids[i_avail], a_ids[i_held]];
            post_amounts := post_amounts || ARRAY[-hold, hold];
            a_delta[i_avail] := a_delta[i_avail] - hold;
            a_delta[i_held] := a_delta[i_held] + hold;
        END IF;
    END IF;

    -- 8. The fills: a trade at the maker's price, which the buyer pays: an incoming bid from
    --    its owner's available (so a better price costs less and nothing comes back), a
    --    resting bid from the held it holds (its own price, which is the maker's). The
    --    seller gets the price less the fee (rounded down), the platform the fee.
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
        IF p_side = 'bid' THEN
            i_payer := i_avail;  -- the owner's available, found in step 7
        ELSE
            i_payer := (a_pos ->> (f_buyer[i] || ':held'))::integer;
        END IF;
        post_txns := post_txns || txn;
        post_accounts := post_accounts || a_ids[i_payer];
        post_amounts := post_amounts || -f_price[i];
        a_delta[i_payer] := a_delta[i_payer] - f_price[i];
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
        PERFORM engine.write_postings(p_currency, post_txns, post_accounts, post_amounts, a_ids,
                                      a_delta);
    END IF;
    IF n > 0 THEN
        INSERT INTO market_entitlement (user_id, solution_id, trade_id, created_at)
        SELECT x.buyer, x.solution, x.trade, v_now
        FROM unnest(f_buyer, f_solution, e_trades) AS x(buyer, solution, trade);
    END IF;
    o_notified := f_buyer || f_seller;
END;
$function$;
