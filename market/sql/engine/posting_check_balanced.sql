-- A posting's currency is its account's and its transaction's, and its transaction balances
-- (checked at commit, when all of its legs are written). One query per posting: as every
-- leg of a transaction is in the transaction's currency, its sum is its sum per currency.
-- Generic plan and no sequential scan (migration 0009).
CREATE OR REPLACE FUNCTION engine.posting_check_balanced()
 RETURNS trigger
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
    same_currency boolean;
    total numeric;
BEGIN
    SELECT (SELECT a.currency = NEW.currency FROM market_account a WHERE a.id = NEW.account_id)
           AND (SELECT t.currency = NEW.currency FROM market_ledgertransaction t
                WHERE t.id = NEW.transaction_id),
           (SELECT SUM(p.amount_minor) FROM market_posting p
            WHERE p.transaction_id = NEW.transaction_id)
    INTO same_currency, total;
    IF same_currency IS NOT TRUE THEN
        RAISE EXCEPTION 'posting % mixes currencies', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % does not balance in %: %',
            NEW.transaction_id, NEW.currency, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$function$;
