"""Serializers: the API's input validation and output shapes. Money is always an integer
count of minor units plus a currency."""

from __future__ import annotations

import re
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from judge.budgets import MAX_SAMPLES
from market.models import (
    Order,
    OrderSide,
    OrderStatus,
    Posting,
    Problem,
    ProblemStatus,
    Solution,
    SolutionStatus,
    Trade,
)
from market.models.problems import MAX_SOLUTION_BYTES
from market.money import Currency
from verifiers.models import DryRun, Language, LeanProject, Verifier, VerifierVersion

MAX_ID = 2**63 - 1
MAX_SAMPLE_COUNT = MAX_SAMPLES  # defined once, in judge.budgets


def _id_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)


class StrictIntegerField(serializers.IntegerField):
    """An integer, and nothing that merely converts to one.

    DRF's ``IntegerField`` takes ``100.0``, ``1e2`` (a JSON float) and ``" 100 "``: a money
    amount or a quantity sent as a float is a client bug (a fraction, or a float that lost
    precision), so it is refused. A string of digits is still accepted: form and multipart
    bodies have no other type.
    """

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool | float) or (
            isinstance(data, str) and not _DIGITS.fullmatch(data)
        ):
            self.fail("invalid")
        return super().to_internal_value(data)  # type: ignore[no-any-return]


_DIGITS = re.compile(r"-?[0-9]{1,30}")


# --- output ---------------------------------------------------------------------------------


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


class VerifierVersionSerializer(serializers.ModelSerializer):
    class Meta:
        model = VerifierVersion
        fields = [
            "id",
            "number",
            "language",
            "sha256",
            "time_limit_s",
            "memory_limit_mb",
            "lean_project",
            "solution_format",
            "allowed_axioms",
            "is_active",
            "published_at",
        ]


class PublicVerifierSerializer(serializers.ModelSerializer):
    """A verifier as solvers see it: its active version's format and budget."""

    active_version = serializers.SerializerMethodField()

    class Meta:
        model = Verifier
        fields = ["id", "name", "language", "status", "is_source_public", "active_version"]

    @extend_schema_field(VerifierVersionSerializer(allow_null=True))
    def get_active_version(self, verifier: Verifier) -> dict[str, Any] | None:
        versions = getattr(verifier, "active_versions", None)
        if versions is None:
            versions = list(verifier.versions.filter(is_active=True).order_by("-number"))
        return VerifierVersionSerializer(versions[0]).data if versions else None


class ProblemListSerializer(serializers.ModelSerializer):
    verifiers = serializers.SerializerMethodField()

    class Meta:
        model = Problem
        fields = [
            "id",
            "slug",
            "title",
            "currency",
            "is_demo",
            "status",
            "published_at",
            "book_sequence",
            "verifiers",
        ]

    @extend_schema_field(PublicVerifierSerializer(many=True))
    def get_verifiers(self, problem: Problem) -> list[dict[str, Any]]:
        verifiers = getattr(problem, "public_verifiers", [])
        return PublicVerifierSerializer(verifiers, many=True).data  # type: ignore[return-value]


class ProblemDetailSerializer(ProblemListSerializer):
    best_bid_minor = serializers.SerializerMethodField()
    best_ask_minor = serializers.SerializerMethodField()

    class Meta(ProblemListSerializer.Meta):
        fields = [
            *ProblemListSerializer.Meta.fields,
            "statement_md",
            "best_bid_minor",
            "best_ask_minor",
        ]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_best_bid_minor(self, problem: Problem) -> int | None:
        return self.context["best_prices"][0]  # type: ignore[no-any-return]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_best_ask_minor(self, problem: Problem) -> int | None:
        return self.context["best_prices"][1]  # type: ignore[no-any-return]


class VerifierDetailSerializer(serializers.ModelSerializer):
    """A verifier with all its versions; ``source`` only when the author made it public."""

    versions = serializers.SerializerMethodField()
    source = serializers.SerializerMethodField()
    problem = serializers.IntegerField(source="problem_id")

    class Meta:
        model = Verifier
        fields = [
            "id",
            "problem",
            "name",
            "language",
            "status",
            "is_source_public",
            "versions",
            "source",
        ]

    @extend_schema_field(VerifierVersionSerializer(many=True))
    def get_versions(self, verifier: Verifier) -> list[dict[str, Any]]:
        versions = verifier.versions.order_by("-number")
        return VerifierVersionSerializer(versions, many=True).data  # type: ignore[return-value]

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_source(self, verifier: Verifier) -> str | None:
        if not verifier.is_source_public:
            return None
        version = verifier.versions.order_by("-number").first()
        return version.source if version is not None else None


class VerdictSerializer(serializers.Serializer):
    verdict = serializers.CharField()
    reason = serializers.CharField(allow_null=True)
    detail = serializers.CharField()
    seed = serializers.IntegerField(allow_null=True)
    wall_time_s = serializers.FloatField()
    cpu_time_s = serializers.FloatField(allow_null=True)
    max_memory_mb = serializers.FloatField(allow_null=True)
    axioms = serializers.ListField(child=serializers.CharField(), allow_null=True)
    judge_version = serializers.CharField()
    created_at = serializers.DateTimeField()


def _verdict_data(solution: Solution) -> dict[str, Any] | None:
    record = getattr(solution, "verdict", None)
    if record is None:
        return None
    return {
        "verdict": record.verdict,
        "reason": record.reason or None,
        "detail": record.detail,
        "seed": record.seed,
        "wall_time_s": record.wall_time_s,
        "cpu_time_s": record.cpu_time_s,
        "max_memory_mb": record.max_memory_mb,
        "axioms": record.axioms,
        "judge_version": record.judge_version,
        "created_at": serializers.DateTimeField().to_representation(record.created_at),
    }


class SolutionStatusSerializer(serializers.ModelSerializer):
    """The small polling shape: status and verdict, no text."""

    verdict = serializers.SerializerMethodField()

    class Meta:
        model = Solution
        fields = ["id", "status", "pending_reason", "judged_at", "verdict"]

    @extend_schema_field(VerdictSerializer(allow_null=True))
    def get_verdict(self, solution: Solution) -> dict[str, Any] | None:
        return _verdict_data(solution)


class SolutionSerializer(SolutionStatusSerializer):
    url = serializers.SerializerMethodField()
    verifier = serializers.IntegerField(source="verifier_version.verifier_id")
    verifier_version = serializers.IntegerField(source="verifier_version_id")
    verifier_version_number = serializers.IntegerField(source="verifier_version.number")
    problem = serializers.IntegerField(source="problem_id")
    is_mine = serializers.SerializerMethodField()
    text = serializers.SerializerMethodField()

    class Meta(SolutionStatusSerializer.Meta):
        fields = [
            "id",
            "url",
            "problem",
            "verifier",
            "verifier_version",
            "verifier_version_number",
            "status",
            "pending_reason",
            "sha256",
            "size_bytes",
            "created_at",
            "judged_at",
            "verdict",
            "is_mine",
            "text",
        ]

    def get_url(self, solution: Solution) -> str:
        path = reverse("api:solution-detail", kwargs={"pk": solution.pk})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path

    def get_is_mine(self, solution: Solution) -> bool:
        request = self.context.get("request")
        return request is not None and solution.solver_id == request.user.pk

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_text(self, solution: Solution) -> str | None:
        # Only views that passed access_solution (solver or entitled buyer) set this.
        return solution.text if self.context.get("include_text") else None


class FillSerializer(serializers.ModelSerializer):
    class Meta:
        model = Trade
        fields = ["id", "price_minor", "fee_minor", "currency", "solution", "created_at"]


class OrderSerializer(serializers.ModelSerializer):
    fills = serializers.SerializerMethodField()
    problem = serializers.IntegerField(source="problem_id")
    solution = serializers.IntegerField(source="solution_id", allow_null=True)

    class Meta:
        model = Order
        fields = [
            "id",
            "problem",
            "side",
            "price_minor",
            "currency",
            "quantity",
            "remaining",
            "status",
            "solution",
            "client_order_id",
            "created_at",
            "closed_at",
            "fills",
        ]

    @extend_schema_field(FillSerializer(many=True))
    def get_fills(self, order: Order) -> list[dict[str, Any]]:
        trades = order.bid_fills.all() if order.side == OrderSide.BID else order.ask_fills.all()
        return FillSerializer(trades, many=True).data  # type: ignore[return-value]


class MyTradeSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField()
    net_minor = serializers.SerializerMethodField()
    problem = serializers.IntegerField(source="problem_id")
    solution = serializers.IntegerField(source="solution_id")
    order = serializers.SerializerMethodField()

    class Meta:
        model = Trade
        fields = [
            "id",
            "problem",
            "solution",
            "order",
            "role",
            "price_minor",
            "fee_minor",
            "net_minor",
            "currency",
            "created_at",
        ]

    def _is_buyer(self, trade: Trade) -> bool:
        return trade.buyer_id == self.context["request"].user.pk  # type: ignore[no-any-return]

    @extend_schema_field(serializers.ChoiceField(choices=["buyer", "seller"]))
    def get_role(self, trade: Trade) -> str:
        return "buyer" if self._is_buyer(trade) else "seller"

    def get_net_minor(self, trade: Trade) -> int:
        """What the trade moved for the caller: -price for the buyer, price - fee for the seller."""
        return -trade.price_minor if self._is_buyer(trade) else trade.price_minor - trade.fee_minor

    def get_order(self, trade: Trade) -> int:
        return trade.bid_id if self._is_buyer(trade) else trade.ask_id


class PublicTradeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Trade
        fields = ["id", "price_minor", "currency", "maker_side", "created_at"]


class BookLevelSerializer(serializers.Serializer):
    price_minor = serializers.IntegerField()
    quantity = serializers.IntegerField()
    order_count = serializers.IntegerField()


class OrderBookSerializer(serializers.Serializer):
    problem = serializers.IntegerField(source="problem_id")
    currency = serializers.CharField()
    sequence = serializers.IntegerField()
    bids = BookLevelSerializer(many=True)
    asks = BookLevelSerializer(many=True)


class BalanceSerializer(serializers.Serializer):
    currency = serializers.CharField()
    available_minor = serializers.IntegerField()
    held_minor = serializers.IntegerField()
    pending_minor = serializers.IntegerField()


class LedgerEntrySerializer(serializers.ModelSerializer):
    transaction = serializers.IntegerField(source="transaction_id")
    kind = serializers.CharField(source="transaction.kind")
    memo = serializers.CharField(source="transaction.memo")
    account_kind = serializers.CharField(source="account.kind")
    created_at = serializers.DateTimeField(source="transaction.created_at")

    class Meta:
        model = Posting
        fields = [
            "id",
            "transaction",
            "kind",
            "account_kind",
            "currency",
            "amount_minor",
            "memo",
            "created_at",
        ]


class TokenSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField()
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)


class TokenCreatedSerializer(TokenSerializer):
    key = serializers.CharField(
        allow_null=True,
        help_text="Shown once; only its hash is stored (null when an Idempotency-Key replays).",
    )


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class DryRunSampleSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["reference", "wrong"])
    index = serializers.IntegerField()
    expected = serializers.CharField()
    verdict = serializers.CharField()
    reason = serializers.CharField(allow_null=True)
    detail = serializers.CharField(allow_blank=True)
    seed = serializers.IntegerField(allow_null=True)
    wall_time_s = serializers.FloatField(allow_null=True)
    is_ok = serializers.BooleanField()
    # Set when the verifier raised on the sample instead of returning False (a contract bug).
    warning = serializers.CharField(allow_blank=True, default="")


class DryRunSerializer(serializers.ModelSerializer):
    results = DryRunSampleSerializer(many=True)
    static_errors = serializers.ListField(child=serializers.CharField())
    is_current = serializers.SerializerMethodField()
    verifier = serializers.IntegerField(source="verifier_id")
    url = serializers.SerializerMethodField()

    class Meta:
        model = DryRun
        fields = [
            "id",
            "url",
            "verifier",
            "status",
            "is_passed",
            "is_current",
            "summary",
            "static_errors",
            "results",
            "fingerprint",
            "created_at",
            "finished_at",
        ]

    def get_url(self, dry_run: DryRun) -> str:
        """Where to poll this dry run until its status is "done"."""
        from django.urls import reverse

        return reverse("api:author-dry-run-detail", kwargs={"pk": dry_run.pk})

    def get_is_current(self, dry_run: DryRun) -> bool:
        """Whether it judged the verifier's current draft (publishing needs a current pass)."""
        from verifiers.drafts import draft_fingerprint

        return dry_run.fingerprint == draft_fingerprint(dry_run.verifier)


class AuthorVerifierSerializer(serializers.ModelSerializer):
    source = serializers.CharField(source="draft_source")
    versions = VerifierVersionSerializer(many=True)
    latest_dry_run = serializers.SerializerMethodField()
    problem = serializers.IntegerField(source="problem_id")

    class Meta:
        model = Verifier
        fields = [
            "id",
            "problem",
            "name",
            "language",
            "status",
            "source",
            "time_limit_s",
            "memory_limit_mb",
            "lean_project",
            "is_source_public",
            "reference_solutions",
            "wrong_solutions",
            "created_at",
            "updated_at",
            "versions",
            "latest_dry_run",
        ]

    @extend_schema_field(DryRunSerializer(allow_null=True))
    def get_latest_dry_run(self, verifier: Verifier) -> dict[str, Any] | None:
        newest = verifier.dry_runs_newest  # type: ignore[attr-defined]  # prefetched by selectors
        return DryRunSerializer(newest[0]).data if newest else None


class AuthorProblemSerializer(serializers.ModelSerializer):
    verifiers = serializers.SerializerMethodField()

    class Meta:
        model = Problem
        fields = [
            "id",
            "slug",
            "title",
            "statement_md",
            "currency",
            "is_demo",
            "status",
            "created_at",
            "published_at",
            "verifiers",
        ]

    @extend_schema_field(AuthorVerifierSerializer(many=True))
    def get_verifiers(self, problem: Problem) -> list[dict[str, Any]]:
        verifiers = problem.verifiers.all()  # prefetched in id order by the selectors
        return AuthorVerifierSerializer(verifiers, many=True).data  # type: ignore[return-value]


# --- input ----------------------------------------------------------------------------------


class ProblemFilterSerializer(serializers.Serializer):
    language = serializers.ChoiceField(choices=Language.choices, required=False)
    demo = serializers.BooleanField(required=False, allow_null=True, default=None)
    currency = serializers.ChoiceField(choices=Currency.choices, required=False)
    status = serializers.ChoiceField(
        choices=[ProblemStatus.PUBLISHED, ProblemStatus.RETIRED], required=False
    )
    q = serializers.CharField(required=False, max_length=200, allow_blank=True)


class SolutionFilterSerializer(serializers.Serializer):
    problem = _id_field(required=False)
    status = serializers.ChoiceField(choices=SolutionStatus.choices, required=False)


class OrderFilterSerializer(serializers.Serializer):
    problem = _id_field(required=False)
    status = serializers.ChoiceField(choices=OrderStatus.choices, required=False)
    side = serializers.ChoiceField(choices=OrderSide.choices, required=False)


class TradeFilterSerializer(serializers.Serializer):
    problem = _id_field(required=False)


class LedgerFilterSerializer(serializers.Serializer):
    currency = serializers.ChoiceField(choices=Currency.choices, required=False)


class SolutionCreateSerializer(serializers.Serializer):
    verifier = _id_field(help_text="The verifier to judge against (its active version).")
    text = serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=False, help_text="The solution text"
    )
    file = serializers.FileField(required=False, help_text="Or upload it (multipart)")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        has_text, has_file = "text" in attrs, "file" in attrs
        if has_text == has_file:
            raise serializers.ValidationError({"text": ["give exactly one of text or file"]})
        if has_file and attrs["file"].size > MAX_SOLUTION_BYTES:
            raise serializers.ValidationError(
                {"file": [f"at most {MAX_SOLUTION_BYTES} bytes; this is {attrs['file'].size}"]}
            )
        return attrs


class OrderCreateSerializer(serializers.Serializer):
    problem = _id_field(required=False, help_text="Required for a bid")
    side = serializers.ChoiceField(choices=OrderSide.choices)
    price_minor = StrictIntegerField(min_value=1, max_value=MAX_ID)
    currency = serializers.ChoiceField(choices=Currency.choices)
    quantity = StrictIntegerField(min_value=1, max_value=2**31 - 1, default=1)
    solution = _id_field(required=False, help_text="Required for an ask: your ACCEPTED solution")
    client_order_id = serializers.RegexField(
        r"^[A-Za-z0-9_:+=/.-]{1,64}$",
        required=False,
        help_text="Your own id: re-sending it returns the existing order",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["side"] == OrderSide.ASK and "solution" not in attrs:
            raise serializers.ValidationError({"solution": ["an ask needs your solution's id"]})
        if attrs["side"] == OrderSide.BID:
            if "problem" not in attrs:
                raise serializers.ValidationError({"problem": ["a bid needs a problem id"]})
            if "solution" in attrs:
                raise serializers.ValidationError({"solution": ["a bid has no solution"]})
        return attrs


class TokenCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    username = serializers.CharField(
        required=False, max_length=150, help_text="Only when not logged in"
    )
    password = serializers.CharField(
        required=False, max_length=1000, help_text="Only when not logged in"
    )


class ProblemCreateSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=200)
    statement_md = serializers.CharField(
        required=False, allow_blank=True, max_length=100_000, default=""
    )
    currency = serializers.ChoiceField(choices=Currency.choices, default=Currency.DEMO)


class ProblemUpdateSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=200, required=False)
    statement_md = serializers.CharField(required=False, allow_blank=True, max_length=100_000)
    currency = serializers.ChoiceField(choices=Currency.choices, required=False)


class VerifierCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, default="main")
    language = serializers.ChoiceField(choices=Language.choices)
    source = serializers.CharField(trim_whitespace=False)
    time_limit_s = serializers.FloatField(default=10.0, min_value=0.001, max_value=1e6)
    memory_limit_mb = serializers.IntegerField(default=256, min_value=1, max_value=10**7)
    lean_project = serializers.ChoiceField(
        choices=[("", "none"), *LeanProject.choices], required=False, default=""
    )
    is_source_public = serializers.BooleanField(default=False)
    reference_solutions = serializers.ListField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False),
        max_length=MAX_SAMPLE_COUNT,
        default=list,
    )
    wrong_solutions = serializers.ListField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False),
        max_length=MAX_SAMPLE_COUNT,
        default=list,
    )


class VerifierUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, required=False)
    language = serializers.ChoiceField(choices=Language.choices, required=False)
    source = serializers.CharField(trim_whitespace=False, required=False)
    time_limit_s = serializers.FloatField(min_value=0.001, max_value=1e6, required=False)
    memory_limit_mb = serializers.IntegerField(min_value=1, max_value=10**7, required=False)
    lean_project = serializers.ChoiceField(
        choices=[("", "none"), *LeanProject.choices], required=False
    )
    is_source_public = serializers.BooleanField(required=False)
    reference_solutions = serializers.ListField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False),
        max_length=MAX_SAMPLE_COUNT,
        required=False,
    )
    wrong_solutions = serializers.ListField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False),
        max_length=MAX_SAMPLE_COUNT,
        required=False,
    )
