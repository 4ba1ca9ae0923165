-- The platform's fee account of a currency (a system account: never locked, never updated;
-- its balance is the sum of its postings), made on first use.
CREATE OR REPLACE FUNCTION engine.fees_account(p_currency text)
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
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
$function$;
