"""Absolute URLs Stripe sends the user back to (Checkout and Connect onboarding)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse


def absolute(request: HttpRequest, name: str) -> str:
    base = settings.PAYMENTS_PUBLIC_BASE_URL.rstrip("/")
    path = reverse(name)
    return f"{base}{path}" if base else request.build_absolute_uri(path)


def checkout_urls(request: HttpRequest) -> tuple[str, str]:
    """(success_url, cancel_url); Stripe fills in {CHECKOUT_SESSION_ID}."""
    success = absolute(request, "payments:deposit-return") + "?session_id={CHECKOUT_SESSION_ID}"
    return success, absolute(request, "payments:deposit-cancelled")


def connect_urls(request: HttpRequest) -> tuple[str, str]:
    """(refresh_url, return_url) of an onboarding Account Link."""
    return absolute(request, "payments:connect-refresh"), absolute(
        request, "payments:connect-return"
    )
