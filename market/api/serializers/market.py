"""Output shapes of the market: problems, verifiers, solutions and their verdicts, tokens, me.

Money is always an integer count of minor units plus a currency. Serializers read what the
selectors fetched: no queries of their own, no service calls."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from market.models import (
    Problem,
    Solution,
)
from verifiers.models import Verifier, VerifierStatus, VerifierVersion


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
        fields = [
            "id",
            "name",
            "language",
            "status",
            "is_source_public",
            "active_version",
            "accepts_submissions",
            "judge_note",
        ]

    accepts_submissions = serializers.SerializerMethodField(
        help_text="False when the verifier has no active version or this server cannot "
        "judge its language (Lean without the toolchain)"
    )
    judge_note = serializers.SerializerMethodField(
        help_text='Why verdicts are slow or impossible now ("the judge is starting"), or null'
    )

    def _state(self, verifier: Verifier) -> Any:
        return (self.context.get("judge_states") or {}).get(verifier.language)

    def get_accepts_submissions(self, verifier: Verifier) -> bool:
        state = self._state(verifier)
        has_version = bool(self.get_active_version(verifier))
        return (
            has_version
            and verifier.status == VerifierStatus.PUBLISHED
            and (state is None or state.accepts_submissions)
        )

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_judge_note(self, verifier: Verifier) -> str | None:
        state = self._state(verifier)
        return state.note if state is not None else None

    @extend_schema_field(VerifierVersionSerializer(allow_null=True))
    def get_active_version(self, verifier: Verifier) -> dict[str, Any] | None:
        versions = getattr(verifier, "active_versions", None)
        if versions is None:
            versions = list(verifier.versions.filter(is_active=True).order_by("-number"))
        return VerifierVersionSerializer(versions[0]).data if versions else None


class ProblemListSerializer(serializers.ModelSerializer):
    verifiers = serializers.SerializerMethodField()
    best_bid_minor = serializers.SerializerMethodField(help_text="Highest open bid, or null")
    best_ask_minor = serializers.SerializerMethodField(help_text="Lowest open ask, or null")

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
            "best_bid_minor",
            "best_ask_minor",
        ]

    @extend_schema_field(PublicVerifierSerializer(many=True))
    def get_verifiers(self, problem: Problem) -> list[dict[str, Any]]:
        verifiers = getattr(problem, "public_verifiers", [])
        return PublicVerifierSerializer(  # type: ignore[return-value]
            verifiers, many=True, context=self.context
        ).data

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_best_bid_minor(self, problem: Problem) -> int | None:
        if "best_prices" in self.context:
            return self.context["best_prices"][0]  # type: ignore[no-any-return]
        return getattr(problem, "best_bid_minor", None)

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_best_ask_minor(self, problem: Problem) -> int | None:
        if "best_prices" in self.context:
            return self.context["best_prices"][1]  # type: ignore[no-any-return]
        return getattr(problem, "best_ask_minor", None)


class ProblemDetailSerializer(ProblemListSerializer):
    class Meta(ProblemListSerializer.Meta):
        fields = [*ProblemListSerializer.Meta.fields, "statement_md"]


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


def verdict_data(solution: Solution) -> dict[str, Any] | None:
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
        return verdict_data(solution)


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
