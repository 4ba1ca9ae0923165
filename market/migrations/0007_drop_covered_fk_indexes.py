"""Drop foreign-key indexes that a composite index already leads with (issue 14).

Order.owner (order_owner_recent leads with it), Posting.account (posting_account_id),
Trade.problem (trade_problem_recent), Trade.buyer (trade_one_copy_per_buyer).

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
    ("market_order_owner_id_ce4a6d04", "market_order", "owner_id"),
    ("market_posting_account_id_6e5cb3ae", "market_posting", "account_id"),
    ("market_trade_buyer_id_981519c9", "market_trade", "buyer_id"),
    ("market_trade_problem_id_73925fd5", "market_trade", "problem_id"),
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
        ("market", "0006_engine_v2"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop, restore)],
            state_operations=[
                migrations.AlterField(
                    model_name="order",
                    name="owner",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="orders",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                migrations.AlterField(
                    model_name="posting",
                    name="account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="postings",
                        to="market.account",
                    ),
                ),
                migrations.AlterField(
                    model_name="trade",
                    name="buyer",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="purchases",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                migrations.AlterField(
                    model_name="trade",
                    name="problem",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="trades",
                        to="market.problem",
                    ),
                ),
            ],
        ),
    ]
