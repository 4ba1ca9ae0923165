-- A solution's status turned final (its verdict committed with it): wake the requests that
-- wait for it (market migration 0018, market/verdict_waits.py). Delivered at commit.
CREATE OR REPLACE FUNCTION engine.solution_judged_notify()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    PERFORM pg_notify('market_solution_judged', NEW.id::text);
    RETURN NULL;
END;
$function$;
