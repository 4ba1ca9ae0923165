"""Problems, solutions and the judge's verdicts on them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

# Defined once, by the judge; re-exported for the forms and serializers.
from judge.verdict import MAX_SOLUTION_BYTES as MAX_SOLUTION_BYTES
from market.money import Currency


class ProblemStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"
    RETIRED = "retired", "Retired"


class Problem(models.Model):
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="problems"
    )
    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    statement_md = models.TextField(blank=True)
    currency = models.CharField(max_length=8, choices=Currency.choices, default=Currency.DEMO)
    is_demo = models.BooleanField(default=False)
    status = models.CharField(
        max_length=16, choices=ProblemStatus.choices, default=ProblemStatus.DRAFT
    )
    # Bumped under the problem's row lock on every change of its book: clients poll it.
    book_sequence = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(is_demo=False) | Q(currency=Currency.DEMO),
                name="problem_demo_trades_demo",
            ),
            models.CheckConstraint(
                condition=Q(currency__in=Currency.values), name="problem_currency_known"
            ),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def is_tradable(self) -> bool:
        return self.status == ProblemStatus.PUBLISHED


class SolutionStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Being judged"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class Solution(models.Model):
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="solutions")
    verifier_version = models.ForeignKey(
        "verifiers.VerifierVersion", on_delete=models.PROTECT, related_name="solutions"
    )
    solver = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="solutions"
    )
    text = models.TextField()
    sha256 = models.CharField(max_length=64)
    size_bytes = models.PositiveIntegerField()
    status = models.CharField(
        max_length=16, choices=SolutionStatus.choices, default=SolutionStatus.PENDING
    )
    # Why a solution is still pending (no Lean toolchain here, judge retrying, ...).
    pending_reason = models.CharField(max_length=300, blank=True)
    judge_attempts = models.PositiveIntegerField(default=0)
    # A worker's claim on a RUNNING solution expires here (see services.solutions).
    claimed_until = models.DateTimeField(null=True, blank=True)
    # Which task holds the claim (its Celery task id): a redelivery of the same task (pool
    # child killed, retry after a dropped database connection) takes its own claim back.
    claim_token = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    judged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(size_bytes__lte=MAX_SOLUTION_BYTES), name="solution_size_cap"
            ),
            # Submitting the same text twice to the same verifier version is one solution.
            models.UniqueConstraint(
                fields=["solver", "verifier_version", "sha256"], name="solution_unique_text"
            ),
        ]
        indexes = [models.Index(fields=["solver", "-created_at"], name="solution_solver_recent")]

    def __str__(self) -> str:
        return f"solution {self.pk} to {self.problem_id}"

    @property
    def is_accepted(self) -> bool:
        return self.status == SolutionStatus.ACCEPTED


class VerdictRecord(models.Model):
    """The judge's decision on a solution: the fields of the judge contract (DESIGN.md)."""

    class Verdict(models.TextChoices):
        ACCEPTED = "ACCEPTED"
        REJECTED = "REJECTED"

    solution = models.OneToOneField(Solution, on_delete=models.PROTECT, related_name="verdict")
    verdict = models.CharField(max_length=16, choices=Verdict.choices)
    reason = models.CharField(max_length=24, blank=True)
    detail = models.TextField(blank=True)
    seed = models.BigIntegerField(null=True, blank=True)
    wall_time_s = models.FloatField(default=0.0)
    cpu_time_s = models.FloatField(null=True, blank=True)
    max_memory_mb = models.FloatField(null=True, blank=True)
    axioms = models.JSONField(null=True, blank=True)
    build_time_s = models.FloatField(null=True, blank=True)
    kernel_time_s = models.FloatField(null=True, blank=True)
    judge_version = models.CharField(max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(verdict="ACCEPTED", reason="")
                | (Q(verdict="REJECTED") & ~Q(reason="")),
                name="verdict_reason_iff_rejected",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.verdict} {self.reason}".strip()
