"""Activity's domain errors (the API's one handler maps them to the error envelope)."""

from __future__ import annotations

from market.exceptions import UserError


class InvalidWebhook(UserError):
    code = "activity:invalid-webhook"
