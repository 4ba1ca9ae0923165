CREATE OR REPLACE FUNCTION public.market_solution_judged_notify()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    PERFORM pg_notify('market_solution_judged', NEW.id::text);
    RETURN NULL;
END;
$function$;

REVOKE EXECUTE ON FUNCTION public.market_solution_judged_notify() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.market_solution_judged_notify() TO CURRENT_USER;

CREATE TRIGGER market_solution_judged_notify
    AFTER UPDATE OF status ON public.market_solution
    FOR EACH ROW
    WHEN (NEW.status IN ('accepted', 'rejected') AND OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION public.market_solution_judged_notify();
