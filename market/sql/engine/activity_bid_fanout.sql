CREATE OR REPLACE FUNCTION engine.activity_bid_fanout()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    INSERT INTO activity_fanout (kind, ref, created_at)
    VALUES ('announce_bid', NEW.id, NEW.created_at);
    RETURN NULL;
END;
$function$;
