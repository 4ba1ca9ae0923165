CREATE OR REPLACE FUNCTION public.market_book_was_busy(p_locked_at timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO 'public', 'pg_temp'
AS $function$
    SELECT p_locked_at - statement_timestamp() > interval '250 microseconds'
           AND current_setting('synchronous_standby_names') = ''
$function$;
