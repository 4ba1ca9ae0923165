CREATE OR REPLACE FUNCTION engine.order_check_ask()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    IF NEW.side = 'ask' AND NOT EXISTS (
        SELECT 1 FROM market_solution s
        WHERE s.id = NEW.solution_id AND s.solver_id = NEW.owner_id
          AND s.problem_id = NEW.problem_id AND s.status = 'accepted'
    ) THEN
        RAISE EXCEPTION 'an ask needs the owner''s own ACCEPTED solution of the problem'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$function$;
