"""Verifiers and their immutable published versions.

A :class:`Verifier` is what an author edits (its draft source and budget). Publishing freezes
the draft into a :class:`VerifierVersion` with the sha256 of its source; solutions, verdicts
and asks point at the version they were judged against, never at the editable verifier.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class Language(models.TextChoices):
    PYTHON = "python", "Python"
    LEAN = "lean", "Lean"


class LeanProject(models.TextChoices):
    CORE = "core", "Lean core"
    MATHLIB = "mathlib", "Mathlib"


class VerifierStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"
    RETIRED = "retired", "Retired"


class Verifier(models.Model):
    problem = models.ForeignKey(
        "market.Problem", on_delete=models.PROTECT, related_name="verifiers"
    )
    name = models.CharField(max_length=100, default="main")
    language = models.CharField(max_length=8, choices=Language.choices)
    status = models.CharField(
        max_length=10, choices=VerifierStatus.choices, default=VerifierStatus.DRAFT
    )
    draft_source = models.TextField()
    time_limit_s = models.FloatField(default=10.0)
    memory_limit_mb = models.PositiveIntegerField(default=256)
    lean_project = models.CharField(max_length=8, choices=LeanProject.choices, blank=True)
    is_source_public = models.BooleanField(default=False)
    # Solutions the author expects ACCEPTED / REJECTED, judged by the dry run.
    reference_solutions = models.JSONField(default=list, blank=True)
    wrong_solutions = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["problem", "name"], name="verifier_unique_name"),
            models.CheckConstraint(condition=Q(time_limit_s__gt=0), name="verifier_time_positive"),
            models.CheckConstraint(
                condition=Q(language=Language.LEAN, lean_project__in=LeanProject.values)
                | Q(language=Language.PYTHON, lean_project=""),
                name="verifier_lean_project_iff_lean",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.problem_id}/{self.name} ({self.language})"

    @property
    def current_version(self) -> VerifierVersion | None:
        return self.versions.order_by("-number").first()


class VerifierVersion(models.Model):
    verifier = models.ForeignKey(Verifier, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    language = models.CharField(max_length=8, choices=Language.choices)
    source = models.TextField()
    sha256 = models.CharField(max_length=64)
    time_limit_s = models.FloatField()
    memory_limit_mb = models.PositiveIntegerField()
    lean_project = models.CharField(max_length=8, choices=LeanProject.choices, blank=True)
    # Python: the module docstring. Lean: the Spec.
    solution_format = models.TextField(blank=True)
    # Lean: the axioms this verifier's first line allows beyond the default three.
    allowed_axioms = models.JSONField(default=list, blank=True)
    is_active = models.BooleanField(default=True)  # False once superseded or retired
    published_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["verifier", "number"], name="version_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.verifier} v{self.number}"


class DryRunStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    DONE = "done", "Done"


class DryRun(models.Model):
    """One judging of a verifier's draft against its author's reference and wrong samples.

    The web process only records the request (PENDING, with a snapshot of the draft in
    ``draft``); a judge worker claims it (RUNNING, ``claim_token`` and a lease in
    ``claimed_until`` kept alive by a heartbeat) and finishes it (DONE, ``is_passed``).
    ``fingerprint`` identifies the exact draft judged (source, budget, project, samples):
    publishing needs a finished, passing dry run whose fingerprint equals the current draft's.
    ``results`` holds one entry per sample: kind ("reference" or "wrong"), index, expected,
    verdict, reason, detail, wall_time_s, is_ok, warning.
    """

    verifier = models.ForeignKey(Verifier, on_delete=models.CASCADE, related_name="dry_runs")
    fingerprint = models.CharField(max_length=64)
    status = models.CharField(
        max_length=8, choices=DryRunStatus.choices, default=DryRunStatus.PENDING
    )
    # What is judged, frozen at the request: language, source, budget, project, samples.
    draft = models.JSONField(default=dict, blank=True)
    is_passed = models.BooleanField(default=False)
    summary = models.CharField(max_length=500, blank=True)
    static_errors = models.JSONField(default=list, blank=True)
    results = models.JSONField(default=list, blank=True)
    judge_attempts = models.PositiveIntegerField(default=0)
    claim_token = models.CharField(max_length=64, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["verifier", "-id"], name="dryrun_verifier_recent"),
            models.Index(fields=["status", "created_at"], name="dryrun_status_created"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(is_passed=False) | Q(status="done"), name="dryrun_passed_iff_done"
            ),
        ]

    def __str__(self) -> str:
        return f"dry run {self.pk} of {self.verifier_id}: {self.status}"

    @property
    def is_finished(self) -> bool:
        return self.status == DryRunStatus.DONE
