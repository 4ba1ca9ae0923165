"""The author workflow's shapes: dry runs, the author's problems and verifiers, and their input."""

from __future__ import annotations

import copy
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from market.api.serializers.fields import MAX_SAMPLE_COUNT
from market.api.serializers.market import VerifierVersionSerializer
from market.models import (
    Problem,
)
from market.money import Currency
from market.selectors import get_publish_refusals
from verifiers.models import DryRun, Language, LeanProject, Verifier


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

        return reverse("api:author-dry-run-detail", kwargs={"pk": dry_run.pk})

    def get_is_current(self, dry_run: DryRun) -> bool:
        """Whether it judged the verifier's current draft (publishing needs a current pass)."""
        from verifiers.drafts import draft_fingerprint

        return dry_run.fingerprint == draft_fingerprint(dry_run.verifier)


class AuthorVerifierSerializer(serializers.ModelSerializer):
    source = serializers.CharField(source="draft_source")
    versions = VerifierVersionSerializer(many=True)
    latest_dry_run = serializers.SerializerMethodField()
    publish_refusals = serializers.SerializerMethodField()
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
            "publish_refusals",
        ]

    @extend_schema_field(DryRunSerializer(allow_null=True))
    def get_latest_dry_run(self, verifier: Verifier) -> dict[str, Any] | None:
        newest = verifier.dry_runs_newest  # type: ignore[attr-defined]  # prefetched by selectors
        return DryRunSerializer(newest[0]).data if newest else None

    @extend_schema_field(
        serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    )
    def get_publish_refusals(self, verifier: Verifier) -> dict[str, list[str]]:
        """Why publishing now would be refused (409), by field; {} when it would publish (or
        the draft is the live version). The rule: ``PUBLISHING_RULE`` in docs/api.md."""
        return get_publish_refusals(verifier=verifier)


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


class ProblemCreateSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=200)
    statement_md = serializers.CharField(
        required=False, allow_blank=True, max_length=100_000, default=""
    )
    currency = serializers.ChoiceField(choices=Currency.choices, default=Currency.DEMO)


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


def _all_optional(create: type[serializers.Serializer]) -> dict[str, serializers.Field]:
    """The fields of ``create``, each optional and without a default: an update changes only
    the fields it names, with the same bounds as a create (written once, in the create)."""
    fields: dict[str, serializers.Field] = {}
    for name, field in create._declared_fields.items():
        kwargs = {
            key: copy.deepcopy(value)  # a fresh, unbound child= field
            for key, value in field._kwargs.items()
            if key not in ("default", "required")
        }
        fields[name] = type(field)(*field._args, required=False, **kwargs)
    return fields


ProblemUpdateSerializer = type(
    "ProblemUpdateSerializer", (serializers.Serializer,), _all_optional(ProblemCreateSerializer)
)
VerifierUpdateSerializer = type(
    "VerifierUpdateSerializer", (serializers.Serializer,), _all_optional(VerifierCreateSerializer)
)
