CREATE OR REPLACE FUNCTION engine.fund_trade()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
    due bigint := NEW.price_minor;
    lot record;
    part bigint;
BEGIN
    FOR lot IN
        SELECT id, remaining_minor FROM public.payments_fundslot
        WHERE user_id = NEW.buyer_id AND remaining_minor > 0
        ORDER BY (source = 'deposit') DESC, id
        FOR UPDATE
    LOOP
        EXIT WHEN due <= 0;
        part := LEAST(lot.remaining_minor, due);
        UPDATE public.payments_fundslot SET remaining_minor = remaining_minor - part
        WHERE id = lot.id;
        INSERT INTO public.payments_tradefunding (trade_id, lot_id, amount_minor, reversed_minor)
        VALUES (NEW.id, lot.id, part, 0);
        due := due - part;
    END LOOP;
    RETURN NULL;
END
$function$;
