CREATE OR REPLACE FUNCTION engine.activity_fanout_notify()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    PERFORM pg_notify('activity_fanout', '');
    RETURN NULL;
END;
$function$;
