"""Payments 0003 and 0004 in one migration, for new databases (a first `make run` migrates
an empty database: fewer migration states to render, docs/stack.md "The first start").

The same schema as 0003 then 0004 (``tests/stack/test_squashed_migrations.py`` compares
``pg_dump --schema-only`` of both chains): each new model is created with its fields, indexes
and constraints at once (Django re-renders the migration state after every operation, which
is most of `migrate`'s time), columns in the order the two migrations gave them, and 0004's
trigger as plain SQL. A database that applied 0003 and 0004 keeps them and counts this one
as applied. 0001-0002 cannot join: market 0005 depends on payments 0002, and payments 0003
on market 0011.
"""

from pathlib import Path

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# 0004's FUNCTION and REVERSE, frozen: the same text whatever 0004's module becomes.
SQL = Path(__file__).resolve().parent / "sql"
FUND_TRADE = (SQL / "0003_fund_trade_trigger.sql").read_text()
FUND_TRADE_REVERSE = (SQL / "0003_fund_trade_trigger_reverse.sql").read_text()


class Migration(migrations.Migration):

    replaces = [
        ('payments', '0003_funds_provenance'),
        ('payments', '0004_fund_trade_trigger'),
    ]

    dependencies = [
        ('market', '0011_losses_account'),
        ('payments', '0002_deposit_refunds'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='FundsLot',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('source', models.CharField(choices=[('deposit', 'Deposit'), ('proceeds', 'Sale proceeds')], max_length=10)),
                ('amount_minor', models.BigIntegerField()),
                ('remaining_minor', models.BigIntegerField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('deposit', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='lot', to='payments.deposit')),
                ('proceeds_hold', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='lot', to='payments.proceedshold')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [
                    models.Index(condition=models.Q(('remaining_minor__gt', 0)), fields=['user', 'id'], name='fundslot_unspent'),
                ],
                'constraints': [
                    models.CheckConstraint(condition=models.Q(('amount_minor__gte', models.F('remaining_minor')), ('remaining_minor__gte', 0)), name='fundslot_remaining_within_amount'),
                    models.CheckConstraint(condition=models.Q(models.Q(('deposit__isnull', False), ('proceeds_hold__isnull', True), ('source', 'deposit')), models.Q(('deposit__isnull', True), ('proceeds_hold__isnull', False), ('source', 'proceeds')), _connector='OR'), name='fundslot_one_origin'),
                ],
            },
        ),
        migrations.CreateModel(
            name='ReconciliationRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('started_at', models.DateTimeField(auto_now_add=True)),
                ('ledger_minor', models.BigIntegerField()),
                ('stripe_minor', models.BigIntegerField()),
                ('differences', models.JSONField(default=list)),
            ],
        ),
        migrations.CreateModel(
            name='TradeFunding',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('amount_minor', models.BigIntegerField()),
                ('reversed_minor', models.BigIntegerField(default=0)),
                ('lot', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='fundings', to='payments.fundslot')),
                ('trade', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='fundings', to='market.trade')),
            ],
            options={
                'indexes': [
                    models.Index(fields=['lot', 'id'], name='tradefunding_lot'),
                ],
                'constraints': [
                    models.CheckConstraint(condition=models.Q(('amount_minor__gt', 0), ('reversed_minor__gte', 0), ('reversed_minor__lte', models.F('amount_minor'))), name='tradefunding_reversed_within_amount'),
                ],
            },
        ),
        migrations.CreateModel(
            name='SaleReversal',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('seller_minor', models.BigIntegerField()),
                ('fee_minor', models.BigIntegerField()),
                ('status', models.CharField(choices=[('reversed', "Reversed: the buyer's payment was taken back"), ('disputed', "On hold: the buyer's payment is disputed"), ('restored', 'Restored: the dispute was decided for us')], max_length=10)),
                ('reason', models.CharField(max_length=200)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('deposit', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='payments.deposit')),
                ('dispute', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='sale_reversals', to='payments.dispute')),
                ('ledger_transaction', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='market.ledgertransaction')),
                ('proceeds_hold', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='payments.proceedshold')),
                ('seller', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='sale_reversals', to=settings.AUTH_USER_MODEL)),
                ('trade', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='reversals', to='market.trade')),
                ('funding', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='payments.tradefunding')),
            ],
            options={
                'indexes': [
                    models.Index(fields=['seller', '-id'], name='salereversal_seller_recent'),
                ],
            },
        ),
        migrations.RemoveConstraint(
            model_name='dispute',
            name='dispute_amount_positive',
        ),
        migrations.AddField(
            model_name='dispute',
            name='from_buyer_minor',
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='dispute',
            name='from_lot_minor',
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='dispute',
            name='from_proceeds_minor',
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='dispute',
            name='loss_minor',
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='dispute',
            name='stripe_amount_minor',
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='dispute',
            name='stripe_status',
            field=models.CharField(blank=True, max_length=32),
        ),
        migrations.AddField(
            model_name='proceedshold',
            name='reversed_minor',
            field=models.BigIntegerField(db_default=0, default=0),
        ),
        migrations.AddConstraint(
            model_name='dispute',
            constraint=models.CheckConstraint(condition=models.Q(('amount_minor__gte', 0)), name='dispute_amount_not_negative'),
        ),
        migrations.AddConstraint(
            model_name='proceedshold',
            constraint=models.CheckConstraint(condition=models.Q(('reversed_minor__gte', 0), ('reversed_minor__lte', models.F('amount_minor'))), name='proceedshold_reversed_within_amount'),
        ),
        migrations.RunSQL([FUND_TRADE], [FUND_TRADE_REVERSE]),
    ]
