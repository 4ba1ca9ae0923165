"""Drop foreign-key indexes that a composite index already leads with (issue 14).

Event.user: activity_event_unique_key (user, key), activity_event_user_id (user, id) and
activity_event_user_feed (user, txid, id) lead with it.

Every placement wrote each of them for nothing. The foreign-key constraints stay: only the
index goes, with ``DROP INDEX CONCURRENTLY`` on PostgreSQL (outside a transaction, so the
tables stay writable while it runs). A plain ``AlterField`` would drop and re-add each
constraint, re-checking every row under an exclusive lock on the table. The model state is
changed by the same ``AlterField`` operations, without their SQL.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# (index, table, column): Django's own names for these indexes, the same on every database.
INDEXES = [
    ("activity_event_user_id_e9e730d9", "activity_event", "user_id"),
]


def drop(apps, schema_editor):
    for name, _, _ in INDEXES:
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")


def restore(apps, schema_editor):
    for name, table, column in INDEXES:
        schema_editor.execute(
            f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON {table} ({column})"
        )


class Migration(migrations.Migration):
    atomic = False  # CREATE/DROP INDEX CONCURRENTLY cannot run in a transaction

    dependencies = [
        ("activity", "0003_engine_triggers"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop, restore)],
            state_operations=[
                migrations.AlterField(
                    model_name="event",
                    name="user",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="activity_events",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        ),
    ]
