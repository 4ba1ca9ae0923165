"""What the activity feed learns from the matching engine, written by triggers (PostgreSQL).

The engine (``market_place_order``, market migration 0005) places an order in one function
call. These triggers, in that same transaction:

- give each trade's buyer a ``bid.filled`` and its seller an ``ask.filled`` event, with the
  payload of the tests' reference model (``tests/market/dev_engine/activity.py``), and queue
  a webhook dispatch (``activity_fanout``) for those of them who have an active endpoint;
- queue the announcement of a bid that rests (``activity_fanout``), done by the beat task
  ``activity.drain_fanout``.

The activity app observes the market's tables; the market knows nothing of activity's. An
event's (user, key) is unique: a second write is a no-op.
"""

from django.db import migrations

FORWARD = r"""
CREATE OR REPLACE FUNCTION activity_trade_events() RETURNS trigger
LANGUAGE plpgsql AS $$
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
$$;

CREATE TRIGGER activity_trade_events
    AFTER INSERT ON market_trade
    FOR EACH ROW EXECUTE FUNCTION activity_trade_events();

CREATE OR REPLACE FUNCTION activity_bid_fanout() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO activity_fanout (kind, ref, created_at)
    VALUES ('announce_bid', NEW.id, NEW.created_at);
    RETURN NULL;
END;
$$;

CREATE TRIGGER activity_bid_fanout
    AFTER INSERT ON market_order
    FOR EACH ROW WHEN (NEW.side = 'bid' AND NEW.status = 'open')
    EXECUTE FUNCTION activity_bid_fanout();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS activity_bid_fanout ON market_order;
DROP FUNCTION IF EXISTS activity_bid_fanout();
DROP TRIGGER IF EXISTS activity_trade_events ON market_trade;
DROP FUNCTION IF EXISTS activity_trade_events();
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FORWARD)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [
        ("activity", "0002_fanout"),
        ("market", "0005_engine_functions"),
    ]

    operations = [migrations.RunPython(forward, backward)]
