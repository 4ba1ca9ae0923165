"""Payments 0001 and 0002 in one migration, for new databases (a shorter first `make run`,
docs/stack.md "The first start").

The same schema as 0001 then 0002 (``tests/stack/test_squashed_migrations.py`` compares
``pg_dump --schema-only`` of both chains): each model is created with its fields, indexes and
constraints at once (Django re-renders the migration state after every operation), columns in
the order the two migrations gave them. A database that applied 0001 and 0002 keeps them and
counts this one as applied.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    replaces = [
        ('payments', '0001_initial'),
        ('payments', '0002_deposit_refunds'),
    ]

    dependencies = [
        ('market', '0003_ledger_triggers'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ConnectedAccount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('stripe_account_id', models.CharField(max_length=255, unique=True)),
                ('charges_enabled', models.BooleanField(default=False)),
                ('payouts_enabled', models.BooleanField(default=False)),
                ('details_submitted', models.BooleanField(default=False)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('refreshed_at', models.DateTimeField(blank=True, null=True)),
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='connected_account', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='Deposit',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('amount_minor', models.BigIntegerField()),
                ('currency', models.CharField(choices=[('DEMO', 'DEMO credits (fake)'), ('USD', 'US dollars')], default='USD', max_length=8)),
                ('status', models.CharField(choices=[('created', 'Created'), ('open', 'Waiting for payment'), ('paid', 'Paid'), ('expired', 'Expired'), ('failed', 'Payment failed')], default='created', max_length=10)),
                ('checkout_session_id', models.CharField(blank=True, max_length=255, null=True, unique=True)),
                ('checkout_url', models.TextField(blank=True)),
                ('payment_intent_id', models.CharField(blank=True, max_length=255, null=True, unique=True)),
                ('idempotency_key', models.CharField(blank=True, max_length=255, null=True)),
                ('refunded_minor', models.BigIntegerField(default=0)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('paid_at', models.DateTimeField(blank=True, null=True)),
                ('ledger_transaction', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='market.ledgertransaction')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='deposits', to=settings.AUTH_USER_MODEL)),
                ('stripe_refunded_minor', models.BigIntegerField(default=0)),
            ],
            options={
                'indexes': [
                    models.Index(fields=['user', '-id'], name='deposit_user_recent'),
                ],
                'constraints': [
                    models.CheckConstraint(condition=models.Q(('amount_minor__gt', 0)), name='deposit_amount_positive'),
                    models.CheckConstraint(condition=models.Q(('currency', 'USD')), name='deposit_currency_usd'),
                    models.CheckConstraint(condition=models.Q(('refunded_minor__gte', 0), ('refunded_minor__lte', models.F('amount_minor'))), name='deposit_refund_within_amount'),
                    models.CheckConstraint(condition=models.Q(models.Q(('status', 'paid'), _negated=True), ('ledger_transaction__isnull', False), _connector='OR'), name='deposit_paid_has_ledger_transaction'),
                    models.UniqueConstraint(condition=models.Q(('idempotency_key__isnull', False)), fields=('user', 'idempotency_key'), name='deposit_unique_idempotency_key'),
                    models.CheckConstraint(condition=models.Q(('stripe_refunded_minor__gte', 0), ('stripe_refunded_minor__lte', models.F('amount_minor'))), name='deposit_stripe_refund_within_amount'),
                ],
            },
        ),
        migrations.CreateModel(
            name='Dispute',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('dispute_id', models.CharField(max_length=255, unique=True)),
                ('amount_minor', models.BigIntegerField()),
                ('status', models.CharField(choices=[('open', 'Open: funds frozen'), ('won', 'Won: funds released'), ('lost', 'Lost: funds returned to the card holder')], max_length=8)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('closed_at', models.DateTimeField(blank=True, null=True)),
                ('close_transaction', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='market.ledgertransaction')),
                ('deposit', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='disputes', to='payments.deposit')),
                ('freeze_transaction', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='market.ledgertransaction')),
            ],
            options={
                'constraints': [
                    models.CheckConstraint(condition=models.Q(('amount_minor__gt', 0)), name='dispute_amount_positive'),
                ],
            },
        ),
        migrations.CreateModel(
            name='ProceedsHold',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('amount_minor', models.BigIntegerField()),
                ('currency', models.CharField(choices=[('DEMO', 'DEMO credits (fake)'), ('USD', 'US dollars')], default='USD', max_length=8)),
                ('available_at', models.DateTimeField()),
                ('released_at', models.DateTimeField(blank=True, null=True)),
                ('release_transaction', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='market.ledgertransaction')),
                ('trade', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='proceeds_hold', to='market.trade')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='proceeds_holds', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [
                    models.Index(condition=models.Q(('released_at__isnull', True)), fields=['available_at'], name='proceedshold_due'),
                ],
                'constraints': [
                    models.CheckConstraint(condition=models.Q(('amount_minor__gt', 0)), name='proceedshold_amount_positive'),
                    models.CheckConstraint(condition=models.Q(models.Q(('release_transaction__isnull', True), ('released_at__isnull', True)), models.Q(('release_transaction__isnull', False), ('released_at__isnull', False)), _connector='OR'), name='proceedshold_released_iff_transaction'),
                ],
            },
        ),
        migrations.CreateModel(
            name='StripeEvent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('event_id', models.CharField(max_length=255, unique=True)),
                ('type', models.CharField(max_length=100)),
                ('livemode', models.BooleanField(default=False)),
                ('outcome', models.CharField(choices=[('processed', 'Processed'), ('ignored', 'Ignored (nothing to do)')], max_length=10)),
                ('detail', models.CharField(blank=True, max_length=200)),
                ('received_at', models.DateTimeField(auto_now_add=True)),
                ('ledger_transaction', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='market.ledgertransaction')),
            ],
        ),
        migrations.CreateModel(
            name='Withdrawal',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('amount_minor', models.BigIntegerField()),
                ('fee_minor', models.BigIntegerField()),
                ('currency', models.CharField(choices=[('DEMO', 'DEMO credits (fake)'), ('USD', 'US dollars')], default='USD', max_length=8)),
                ('status', models.CharField(choices=[('requested', 'Funds held; transfer not yet confirmed by Stripe'), ('paid', 'Transferred to your Stripe account'), ('failed', 'Failed: funds released')], default='requested', max_length=10)),
                ('idempotency_key', models.CharField(blank=True, max_length=255, null=True)),
                ('transfer_id', models.CharField(blank=True, max_length=255, null=True, unique=True)),
                ('attempts', models.PositiveIntegerField(default=0)),
                ('failure_code', models.CharField(blank=True, max_length=100)),
                ('failure_message', models.CharField(blank=True, max_length=500)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('closed_at', models.DateTimeField(blank=True, null=True)),
                ('close_transaction', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='market.ledgertransaction')),
                ('connected_account', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='withdrawals', to='payments.connectedaccount')),
                ('hold_transaction', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='market.ledgertransaction')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='withdrawals', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [
                    models.Index(fields=['user', '-id'], name='withdrawal_user_recent'),
                ],
                'constraints': [
                    models.CheckConstraint(condition=models.Q(('amount_minor__gt', models.F('fee_minor')), ('fee_minor__gte', 0)), name='withdrawal_amount_exceeds_fee'),
                    models.CheckConstraint(condition=models.Q(('currency', 'USD')), name='withdrawal_currency_usd'),
                    models.CheckConstraint(condition=models.Q(models.Q(('close_transaction__isnull', True), ('status', 'requested')), models.Q(models.Q(('status', 'requested'), _negated=True), ('close_transaction__isnull', False)), _connector='OR'), name='withdrawal_closed_iff_close_transaction'),
                    models.CheckConstraint(condition=models.Q(models.Q(('status', 'paid'), _negated=True), ('transfer_id__isnull', False), _connector='OR'), name='withdrawal_paid_has_transfer'),
                    models.UniqueConstraint(condition=models.Q(('idempotency_key__isnull', False)), fields=('user', 'idempotency_key'), name='withdrawal_unique_idempotency_key'),
                ],
            },
        ),
        migrations.CreateModel(
            name='DepositRefund',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('amount_minor', models.BigIntegerField()),
                ('status', models.CharField(choices=[('requested', 'Requested; not yet confirmed by Stripe'), ('succeeded', 'Refunded to the original payment'), ('failed', 'Refused by Stripe: funds returned to your balance')], default='requested', max_length=10)),
                ('idempotency_key', models.CharField(blank=True, max_length=255, null=True)),
                ('stripe_refund_id', models.CharField(blank=True, max_length=255, null=True, unique=True)),
                ('attempts', models.PositiveIntegerField(default=0)),
                ('failure_code', models.CharField(blank=True, max_length=100)),
                ('failure_message', models.CharField(blank=True, max_length=500)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('closed_at', models.DateTimeField(blank=True, null=True)),
                ('close_transaction', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='market.ledgertransaction')),
                ('deposit', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='user_refunds', to='payments.deposit')),
                ('request_transaction', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='market.ledgertransaction')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='deposit_refunds', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [
                    models.Index(fields=['user', '-id'], name='depositrefund_user_recent'),
                ],
                'constraints': [
                    models.CheckConstraint(condition=models.Q(('amount_minor__gt', 0)), name='depositrefund_amount_positive'),
                    models.CheckConstraint(condition=models.Q(models.Q(('status', 'succeeded'), _negated=True), ('stripe_refund_id__isnull', False), _connector='OR'), name='depositrefund_succeeded_has_stripe_id'),
                    models.CheckConstraint(condition=models.Q(models.Q(('status', 'failed'), _negated=True), ('close_transaction__isnull', False), _connector='OR'), name='depositrefund_failed_has_close_transaction'),
                    models.UniqueConstraint(condition=models.Q(('idempotency_key__isnull', False)), fields=('user', 'idempotency_key'), name='depositrefund_unique_idempotency_key'),
                ],
            },
        ),
    ]
