-- The user accounts (owner, kind) of one currency, created when missing and then locked in
-- ascending id order. Missing accounts are created first, in ascending (owner, kind) order,
-- before any account is locked: a new account holds its unique-index entry until commit, so
-- creating one while holding account locks could close a cycle with another transaction.
-- Two statements in the steady state (every account exists): one that counts the missing,
-- one that locks and reads them all. Generic plans (one index probe per key), planned once
-- per session: a custom plan for these array parameters was planned afresh on every call.
CREATE OR REPLACE FUNCTION engine.lock_user_accounts(p_currency text, p_owners integer[], p_kinds text[], OUT ids bigint[], OUT keys text[], OUT balances bigint[])
 RETURNS record
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
    missing integer;
BEGIN
    SELECT count(*) FILTER (WHERE a.id IS NULL) INTO missing
    FROM (SELECT DISTINCT u.owner_id, u.kind FROM unnest(p_owners, p_kinds) AS u(owner_id, kind)) k
    LEFT JOIN market_account a
        ON a.owner_id = k.owner_id AND a.currency = p_currency AND a.kind = k.kind;
    IF missing > 0 THEN
        -- Only the missing ones (an existing key would only wait on its row's writer).
        INSERT INTO market_account (owner_id, currency, kind, balance_minor)
        SELECT k.owner_id, p_currency, k.kind, 0
        FROM (SELECT DISTINCT u.owner_id, u.kind FROM unnest(p_owners, p_kinds) AS u(owner_id, kind)) k
        LEFT JOIN market_account a
            ON a.owner_id = k.owner_id AND a.currency = p_currency AND a.kind = k.kind
        WHERE a.id IS NULL
        ORDER BY k.owner_id, k.kind COLLATE "C"
        ON CONFLICT DO NOTHING;
    END IF;
    -- FOR UPDATE locks the rows as they leave the sort: in ascending id order.
    SELECT array_agg(l.id ORDER BY l.id), array_agg(l.owner_id || ':' || l.kind ORDER BY l.id),
           array_agg(l.balance_minor ORDER BY l.id)
    INTO ids, keys, balances
    FROM (SELECT a.id, a.owner_id, a.kind, a.balance_minor FROM market_account a
          WHERE a.currency = p_currency
            AND (a.owner_id, a.kind) IN (SELECT * FROM unnest(p_owners, p_kinds))
          ORDER BY a.id
          FOR UPDATE OF a) l;
END;
$function$;
