"""Typed domain errors with stable codes.

Two families: :class:`UserError` (the caller's fault; never retried, shown to the user) and
:class:`PlatformError` (ours; retried and logged). The API maps both to
``{"error": {"code", "message", "fields"}}``.
"""

from __future__ import annotations


class DomainError(Exception):
    code = "market:error"
    http_status = 400

    def __init__(self, message: str, *, fields: dict[str, list[str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields or {}


class UserError(DomainError):
    pass


class PlatformError(DomainError):
    code = "market:platform-error"
    http_status = 503


class NotFound(UserError):
    """Missing and not-yours look the same (see access.py)."""

    code = "not-found"
    http_status = 404


class InsufficientFunds(UserError):
    code = "market:insufficient-funds"
    http_status = 402


class InvalidOrder(UserError):
    code = "market:invalid-order"


class SolutionNotAccepted(UserError):
    code = "market:solution-not-accepted"
    http_status = 409


class NotTradable(UserError):
    code = "market:not-tradable"
    http_status = 409


class OrderNotOpen(UserError):
    code = "market:order-not-open"
    http_status = 409


class ClientOrderIdReused(UserError):
    code = "market:client-order-id-reused"
    http_status = 422


class CurrencyMismatch(UserError):
    code = "market:currency-mismatch"


class InvalidSolution(UserError):
    code = "market:invalid-solution"


class SubmissionsClosed(UserError):
    code = "market:submissions-closed"
    http_status = 409
