-- Write a placement's postings, in the order given (a transaction's legs follow its
-- creation), and apply them to the user balances among p_user_accounts (locked by the
-- caller). System accounts are not updated. One statement each.
CREATE OR REPLACE FUNCTION engine.write_postings(p_currency text, p_txns bigint[], p_accounts bigint[], p_amounts bigint[], p_user_accounts bigint[], p_deltas bigint[])
 RETURNS void
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    INSERT INTO market_posting (transaction_id, account_id, currency, amount_minor)
    SELECT p.txn, p.account, p_currency, p.amount
    FROM unnest(p_txns, p_accounts, p_amounts) WITH ORDINALITY AS p(txn, account, amount, n)
    ORDER BY p.n;
    UPDATE market_account AS a SET balance_minor = a.balance_minor + d.delta
    FROM unnest(p_user_accounts, p_deltas) AS d(id, delta)
    WHERE a.id = d.id AND d.delta <> 0;
END;
$function$;
