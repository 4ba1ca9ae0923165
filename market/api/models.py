"""API tokens and idempotency records."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class ApiToken(models.Model):
    """A program's credential. Only the sha256 of the key is stored; the key is shown once.

    A key is ``fm_<prefix>_<secret>``: the prefix finds the row, the hash of the whole key is
    compared in constant time. Keys carry 256 bits of randomness, so a plain sha256 (not a slow
    password hash) is enough: nothing about them can be guessed offline.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, unique=True)
    key_sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"token {self.prefix} of {self.user_id}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class IdempotencyRecord(models.Model):
    """The first response to a state-changing request made with an ``Idempotency-Key``."""

    class State(models.TextChoices):
        IN_PROGRESS = "in_progress"
        COMPLETED = "completed"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="idempotency_records"
    )
    key = models.CharField(max_length=255)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=500)
    request_sha256 = models.CharField(max_length=64)
    state = models.CharField(max_length=12, choices=State.choices, default=State.IN_PROGRESS)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    response_headers = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_unique_user_key"),
            models.CheckConstraint(
                condition=Q(state="in_progress") | Q(response_status__isnull=False),
                name="idempotency_completed_has_status",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.key} {self.state}"
