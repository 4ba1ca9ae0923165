"""The base classes of every typed domain error, shared by all apps.

Two families: :class:`UserError` (the caller's fault; never retried, shown to the user) and
:class:`PlatformError` (ours; retried and logged). The API's one exception handler
(``market.api.errors``) maps both to ``{"error": {"code", "message", "fields"}}``.

This module sits below every app (``verifiers`` and ``market`` both import it) so that the
lower app, ``verifiers``, needs nothing of ``market`` to raise an error the API can render.
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
    """Missing and not-yours look the same (see the ``access.py`` of each app)."""

    code = "not-found"
    http_status = 404
