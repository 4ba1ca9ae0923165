"""Typed errors of the payments app (stable codes; see market.exceptions for the families)."""

from __future__ import annotations

from market.exceptions import PlatformError, UserError


class UsdDisabled(UserError):
    """No Stripe keys: USD is off. Not retryable, so a user error family with 403."""

    code = "payments:usd-disabled"
    http_status = 403


class InvalidAmount(UserError):
    code = "payments:invalid-amount"


class IdempotencyKeyReused(UserError):
    code = "payments:idempotency-key-reused"
    http_status = 422


class ConnectAccountMissing(UserError):
    code = "payments:connect-account-missing"
    http_status = 409


class PayoutsNotEnabled(UserError):
    code = "payments:payouts-not-enabled"
    http_status = 409


class InvalidWebhook(UserError):
    """Bad signature, stale timestamp, wrong secret or malformed body: answered 400."""

    code = "payments:invalid-webhook"


class StripeUnavailable(PlatformError):
    """Stripe did not answer or answered 5xx/429: retried with the same idempotency key."""

    code = "payments:stripe-unavailable"
    http_status = 503


class StripeRefused(UserError):
    """Stripe refused the request (4xx): not retried."""

    code = "payments:stripe-refused"
    http_status = 402
    stripe_code = ""  # Stripe's own code (card_declined, balance_insufficient, ...)


class EventOutOfOrder(PlatformError):
    """An event refers to a payment we have not seen completed yet: Stripe retries it later."""

    code = "payments:event-out-of-order"
    http_status = 409


class LivemodeMismatch(InvalidWebhook):
    """A live-mode event on a test-key server, or the reverse: answered 400, not recorded."""

    code = "payments:livemode-mismatch"


class PaymentsBusy(PlatformError):
    """A lock could not be taken without risking a deadlock: nothing changed; retry."""

    code = "payments:busy"
    http_status = 503


class NotRefundable(UserError):
    """More than the deposit's unspent, unrefunded, undisputed amount was asked back."""

    code = "payments:not-refundable"
    http_status = 409
