"""Serializers of the payments API: input parsing and output shapes only."""

from __future__ import annotations

from rest_framework import serializers

from market.api.serializers import MAX_ID, StrictIntegerField
from market.payments.models import ConnectedAccount, Deposit, DepositRefund, Withdrawal


# Money is never a float (docs/api.md "Conventions"): 1000.0 or 1e3 is refused, as on orders.
class AmountSerializer(serializers.Serializer[dict[str, int]]):
    amount_minor = StrictIntegerField(min_value=1, max_value=MAX_ID)


class RefundAmountSerializer(serializers.Serializer[dict[str, int]]):
    amount_minor = StrictIntegerField(
        min_value=1, max_value=MAX_ID, required=False, help_text="default: all that can be refunded"
    )


class DepositRefundSerializer(serializers.ModelSerializer[DepositRefund]):
    class Meta:
        model = DepositRefund
        fields = [
            "id",
            "deposit",
            "amount_minor",
            "status",
            "stripe_refund_id",
            "failure_code",
            "failure_message",
            "created_at",
            "closed_at",
        ]


class DepositRefundListSerializer(serializers.Serializer[dict[str, object]]):
    results = DepositRefundSerializer(many=True)


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


class PolicySerializer(serializers.Serializer[dict[str, int]]):
    deposit_min_minor = serializers.IntegerField()
    deposit_max_minor = serializers.IntegerField()
    payout_min_minor = serializers.IntegerField()
    payout_fee_fixed_minor = serializers.IntegerField()
    payout_fee_bps = serializers.IntegerField()
    proceeds_hold_window_s = serializers.IntegerField()


class DisabledSerializer(serializers.Serializer[dict[str, str]]):
    code = serializers.CharField()
    message = serializers.CharField()


class UsdSummarySerializer(serializers.Serializer[dict[str, object]]):
    """Output only (documentation of UsdSummaryView's body)."""

    usd_enabled = serializers.BooleanField()
    currency = serializers.CharField()
    available_minor = serializers.IntegerField()
    refundable_minor = serializers.IntegerField(
        help_text="part of available: unspent deposits, returned only as a refund"
    )
    withdrawable_minor = serializers.IntegerField(
        help_text="part of available: matured sale proceeds, paid out by transfer"
    )
    held_minor = serializers.IntegerField()
    pending_minor = serializers.IntegerField()
    debt_minor = serializers.IntegerField(help_text="<= 0: what the user owes")
    next_release_at = serializers.DateTimeField(allow_null=True)
    connected_account = ConnectedAccountSerializer(allow_null=True)
    can_withdraw = serializers.BooleanField()
    policy = PolicySerializer()
    disabled = DisabledSerializer(required=False)


class UsdPostingSerializer(serializers.Serializer[dict[str, object]]):
    id = serializers.IntegerField()
    at = serializers.DateTimeField()
    kind = serializers.CharField()
    memo = serializers.CharField()
    account = serializers.CharField()
    amount_minor = serializers.IntegerField()
    amount = serializers.CharField()


class UsdHistorySerializer(serializers.Serializer[dict[str, object]]):
    results = UsdPostingSerializer(many=True)
    next_before = serializers.IntegerField(allow_null=True)


class DepositListSerializer(serializers.Serializer[dict[str, object]]):
    results = DepositSerializer(many=True)


class WithdrawalListSerializer(serializers.Serializer[dict[str, object]]):
    results = WithdrawalSerializer(many=True)


class ConnectStatusSerializer(serializers.Serializer[dict[str, object]]):
    connected_account = ConnectedAccountSerializer(allow_null=True)


class OnboardingLinkSerializer(serializers.Serializer[dict[str, str]]):
    url = serializers.URLField()
