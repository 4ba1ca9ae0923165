CREATE OR REPLACE FUNCTION engine.activity_trade_events()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
    common jsonb;
BEGIN
    SELECT jsonb_build_object(
               'problem_id', p.id, 'problem_title', p.title, 'problem_slug', p.slug,
               'trade_id', NEW.id, 'solution_id', NEW.solution_id,
               'price_minor', NEW.price_minor, 'currency', NEW.currency)
    INTO common
    FROM market_problem p WHERE p.id = NEW.problem_id;
    INSERT INTO activity_event (user_id, kind, key, payload, created_at)
    VALUES (NEW.buyer_id, 'bid.filled', 'trade:' || NEW.id || ':buyer',
            common || jsonb_build_object('order_id', NEW.bid_id), NEW.created_at),
           (NEW.seller_id, 'ask.filled', 'trade:' || NEW.id || ':seller',
            common || jsonb_build_object('order_id', NEW.ask_id, 'fee_minor', NEW.fee_minor,
                                         'net_minor', NEW.price_minor - NEW.fee_minor),
            NEW.created_at)
    ON CONFLICT DO NOTHING;
    INSERT INTO activity_fanout (kind, ref, created_at)
    SELECT 'dispatch', u.user_id, NEW.created_at
    FROM (VALUES (NEW.buyer_id), (NEW.seller_id)) AS u(user_id)
    WHERE EXISTS (SELECT 1 FROM activity_webhookendpoint w
                  WHERE w.user_id = u.user_id AND w.disabled_at IS NULL)
      -- One pending dispatch per user is enough: it sends all their new events.
      AND NOT EXISTS (SELECT 1 FROM activity_fanout f
                      WHERE f.kind = 'dispatch' AND f.ref = u.user_id);
    RETURN NULL;
END;
$function$;
