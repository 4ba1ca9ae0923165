"""THE seam for Stripe: every call to Stripe, in or out, goes through this module.

Outbound calls use a ``stripe.StripeClient`` built from settings on each use (no settings read
at import time). Its HTTP transport comes from :func:`build_http_client`: ``None`` lets the
library pick its default; tests replace that one function with a fake ``stripe.HTTPClient``
that records what was sent and answers with recorded responses, so the real library encodes
every request and decodes every answer and error.

Inbound webhooks are verified here with the library's signature check and the endpoint
secret.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import stripe
from django.conf import settings

from market.payments.exceptions import StripeRefused, StripeUnavailable, UsdDisabled

logger = logging.getLogger(__name__)


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


def server_livemode() -> bool:
    """Whether the configured key is a live-mode key (``sk_live_``/``rk_live_``)."""
    return str(settings.STRIPE_SECRET_KEY).startswith(("sk_live_", "rk_live_"))


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def verify_webhook(*, payload: bytes, signature_header: str) -> Any:
    """Verify a webhook's signature on the raw body; return the body as plain JSON.

    The signature is checked with ``stripe.WebhookSignature.verify_header``, the check both
    ``stripe.Webhook.construct_event`` (snapshot events) and ``parse_event_notification``
    (thin v2 events) make before decoding; the verified bytes are then decoded as strict
    JSON (no NaN or Infinity) and returned whatever their shape: the caller checks it.

    Raises ``stripe.SignatureVerificationError`` (bad, missing or stale signature, wrong
    secret) or ``ValueError`` (not UTF-8 JSON), and :class:`UsdDisabled` without a webhook
    secret.
    """
    require_usd()
    secret = settings.STRIPE_WEBHOOK_SECRET
    if not secret:
        raise UsdDisabled("no Stripe webhook secret is configured")
    if not signature_header.isascii():
        # The library's hmac.compare_digest raises TypeError on non-ASCII str: Stripe's
        # signatures are hex, so such a header is simply not a signature.
        raise stripe.SignatureVerificationError(
            "No signatures found matching the expected signature for payload",
            signature_header,
            payload,
        )
    stripe.WebhookSignature.verify_header(
        payload, signature_header, secret, settings.STRIPE_WEBHOOK_TOLERANCE_S
    )
    # The documented shapes we read are Stripe's own JSON, independent of how the library
    # wraps objects.
    try:
        return json.loads(payload, parse_constant=_refuse_constant)
    except RecursionError as error:
        # Nested deeper than the parser's recursion allows (e.g. 100k arrays): not Stripe's.
        raise ValueError("JSON nested too deeply") from error


def is_temporary(error: stripe.StripeError) -> bool:
    """Whether retrying the same request (same idempotency key) may succeed."""
    if isinstance(error, stripe.APIConnectionError | stripe.RateLimitError | stripe.APIError):
        return True
    status = error.http_status or 0
    return status >= 500 or status in (409, 429)


UNREACHABLE_MESSAGE = "Stripe cannot be reached right now; nothing was charged. Try again later."
REFUSED_MESSAGE = "Stripe refused the request."


def refusal_message(error: stripe.StripeError) -> str:
    """What a user may read of a refusal: Stripe's own user-facing message (a card decline
    explained), never the library's text (which names hosts, resolvers, request ids)."""
    return str(error.user_message or "") or REFUSED_MESSAGE


def translate_error(error: stripe.StripeError) -> StripeUnavailable | StripeRefused:
    """Map a library error to our typed errors (temporary → retried; else → refused).

    The raw error is logged here, and only a fixed or Stripe-authored message reaches users.
    """
    if is_temporary(error):
        logger.warning("Stripe unavailable: %s", error)
        return StripeUnavailable(UNREACHABLE_MESSAGE)
    logger.warning("Stripe refused a request: %s", error)
    refused = StripeRefused(refusal_message(error))
    refused.stripe_code = str(error.code or type(error).__name__)
    return refused
