"""Serializers of the payments API: input parsing and output shapes only."""

from __future__ import annotations

from rest_framework import serializers

from market.payments.models import ConnectedAccount, Deposit, Withdrawal


class AmountSerializer(serializers.Serializer[dict[str, int]]):
    amount_minor = serializers.IntegerField(min_value=1)


class DepositSerializer(serializers.ModelSerializer[Deposit]):
    class Meta:
        model = Deposit
        fields = [
            "id",
            "amount_minor",
            "currency",
            "status",
            "checkout_url",
            "refunded_minor",
            "created_at",
            "paid_at",
        ]


class WithdrawalSerializer(serializers.ModelSerializer[Withdrawal]):
    net_minor = serializers.IntegerField(read_only=True)

    class Meta:
        model = Withdrawal
        fields = [
            "id",
            "amount_minor",
            "fee_minor",
            "net_minor",
            "currency",
            "status",
            "transfer_id",
            "failure_code",
            "failure_message",
            "created_at",
            "closed_at",
        ]


class ConnectedAccountSerializer(serializers.ModelSerializer[ConnectedAccount]):
    class Meta:
        model = ConnectedAccount
        fields = [
            "stripe_account_id",
            "charges_enabled",
            "payouts_enabled",
            "details_submitted",
            "refreshed_at",
        ]
