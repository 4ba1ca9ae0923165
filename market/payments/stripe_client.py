"""THE seam for Stripe: every call to Stripe, in or out, goes through this module.

Outbound calls use a ``stripe.StripeClient`` built from settings on each use (no settings read
at import time). Its HTTP transport comes from :func:`build_http_client`: ``None`` lets the
library pick its default; tests replace that one function with a fake ``stripe.HTTPClient``
that records what was sent and answers with recorded responses, so the real library encodes
every request and decodes every answer and error.

Inbound webhooks are verified here with ``stripe.Webhook.construct_event`` and the endpoint
secret.
"""

from __future__ import annotations

import json
from typing import Any

import stripe
from django.conf import settings

from market.payments.exceptions import StripeRefused, StripeUnavailable, UsdDisabled


def usd_enabled() -> bool:
    """USD trading, deposits and payouts exist only when a Stripe secret key is configured."""
    return bool(settings.STRIPE_SECRET_KEY)


def require_usd() -> None:
    if not usd_enabled():
        raise UsdDisabled(
            "USD payments are disabled on this server (no Stripe keys are configured); "
            "the DEMO market works as usual."
        )


def build_http_client() -> stripe.HTTPClient | None:
    """The transport for outbound calls; ``None`` means the library's default."""
    return None


def get_client() -> stripe.StripeClient:
    require_usd()
    return stripe.StripeClient(
        settings.STRIPE_SECRET_KEY,
        http_client=build_http_client(),
        max_network_retries=settings.STRIPE_MAX_NETWORK_RETRIES,
    )


def verify_webhook(*, payload: bytes, signature_header: str) -> dict[str, Any]:
    """Verify a webhook's signature on the raw body; return the event as plain JSON.

    Raises ``stripe.SignatureVerificationError`` (bad, missing or stale signature, wrong
    secret) or ``ValueError`` (not JSON), and :class:`UsdDisabled` without a webhook secret.
    """
    require_usd()
    secret = settings.STRIPE_WEBHOOK_SECRET
    if not secret:
        raise UsdDisabled("no Stripe webhook secret is configured")
    tolerance = settings.STRIPE_WEBHOOK_TOLERANCE_S
    try:
        is_thin = json.loads(payload).get("object") == "v2.core.event"
    except (ValueError, AttributeError):
        is_thin = False  # construct_event below refuses it with the library's own error
    if is_thin:
        # A v2 "thin" event notification (Accounts v2 changes): construct_event refuses those
        # by design; the library's parse_event_notification verifies them with verify_header.
        stripe.WebhookSignature.verify_header(payload, signature_header, secret, tolerance)
    else:
        stripe.Webhook.construct_event(payload, signature_header, secret, tolerance=tolerance)
    # Work on the verified bytes as plain JSON: the shapes we read are Stripe's documented
    # ones, independent of how the library wraps objects.
    event: dict[str, Any] = json.loads(payload)
    return event


def is_temporary(error: stripe.StripeError) -> bool:
    """Whether retrying the same request (same idempotency key) may succeed."""
    if isinstance(error, stripe.APIConnectionError | stripe.RateLimitError | stripe.APIError):
        return True
    status = error.http_status or 0
    return status >= 500 or status in (409, 429)


def translate_error(error: stripe.StripeError) -> StripeUnavailable | StripeRefused:
    """Map a library error to our typed errors (temporary → retried; else → refused)."""
    if is_temporary(error):
        return StripeUnavailable(f"Stripe is unavailable: {error.user_message or error}")
    refused = StripeRefused(str(error.user_message or error) or "Stripe refused the request")
    refused.stripe_code = str(error.code or type(error).__name__)
    return refused
