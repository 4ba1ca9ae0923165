"""The fan-out outbox wakes its drainer: ``NOTIFY activity_fanout`` when rows are queued.

A statement trigger on ``activity_fanout`` (written by the engine's triggers of migration 0003
in the placement's own transaction) sends one notification per statement; PostgreSQL delivers
it when the transaction commits, and folds duplicates of one transaction into one. The
listener (:mod:`activity.services.listener`, a thread of celery beat) enqueues
``activity.drain_fanout`` when it hears one, so the 1 Hz polling is gone; the beat schedule
keeps a slow backstop sweep (``ACTIVITY_FANOUT_EVERY_S``, 30 s) for a notification that no
one heard (the listener reconnecting, beat restarting).
"""

from django.db import migrations

FORWARD = r"""
CREATE OR REPLACE FUNCTION activity_fanout_notify() RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
BEGIN
    PERFORM pg_notify('activity_fanout', '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER activity_fanout_notify
    AFTER INSERT ON activity_fanout
    FOR EACH STATEMENT EXECUTE FUNCTION activity_fanout_notify();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS activity_fanout_notify ON activity_fanout;
DROP FUNCTION IF EXISTS activity_fanout_notify();
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FORWARD)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("activity", "0004_drop_covered_fk_indexes")]

    operations = [migrations.RunPython(forward, backward)]
