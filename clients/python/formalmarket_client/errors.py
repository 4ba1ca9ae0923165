"""Typed errors carrying the API's stable code, message and per-field details."""

from __future__ import annotations

from typing import Any


class FormalMarketError(Exception):
    """Base class of everything this client raises."""


class TransportError(FormalMarketError):
    """The server could not be reached (after the retries)."""


class ApiError(FormalMarketError):
    """An error answered by the API: ``{"error": {"code", "message", "fields"}}``."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        fields: dict[str, Any] | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(_describe(code, message, fields or {}))
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields or {}
        self.retry_after_s = retry_after_s


def _describe(code: str, message: str, fields: dict[str, Any]) -> str:
    """``api:invalid: invalid input (price_minor: A valid integer is required.)``."""
    text = f"{code}: {message}" if code else message
    details = "; ".join(
        f"{name}: {' '.join(str(m) for m in msgs) if isinstance(msgs, list) else msgs}"
        for name, msgs in fields.items()
    )
    return f"{text} ({details})" if details else text


class MoneyArgumentError(FormalMarketError, ValueError):
    """A money argument the client refuses before sending anything: ``price_minor`` must be
    an int of minor units (``10.00 DEMO is 1000``), ``price`` a decimal string with its
    currency. ``code``, ``message`` and ``fields`` are shaped like an API error's."""

    status = 0
    code = "client:invalid-money"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.fields = {field: [message]}


class InvalidRequest(ApiError):
    """400 or 422: the request is wrong (see ``fields``)."""


class AuthenticationError(ApiError):
    """401: no token, a wrong token, a revoked token, or a wrong password."""


class InsufficientFunds(ApiError):
    """402 ``market:insufficient-funds``."""


class PermissionDenied(ApiError):
    """403."""


class NotFound(ApiError):
    """404 ``not-found``: missing, or not yours (the API does not tell them apart)."""


class Conflict(ApiError):
    """409: the state does not allow it (not accepted, order not open, submissions closed...)."""


class Throttled(ApiError):
    """429 after the client's own retries ran out."""


class ServerError(ApiError):
    """5xx after the client's own retries ran out."""


class VerdictTimeout(FormalMarketError):
    """``wait`` ran out of time before the solution was judged."""

    def __init__(self, solution_id: int, last_status: str, pending_reason: str) -> None:
        super().__init__(
            f"solution {solution_id} is still {last_status}"
            + (f": {pending_reason}" if pending_reason else "")
        )
        self.solution_id = solution_id
        self.last_status = last_status
        self.pending_reason = pending_reason


_BY_STATUS: dict[int, type[ApiError]] = {
    400: InvalidRequest,
    401: AuthenticationError,
    402: InsufficientFunds,
    403: PermissionDenied,
    404: NotFound,
    409: Conflict,
    422: InvalidRequest,
    429: Throttled,
}


def error_for(
    status: int, body: Any, retry_after_s: float | None = None, raw: bytes = b""
) -> ApiError:
    """The typed error for an HTTP error answer."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        code, message = str(error.get("code", "")), str(error.get("message", ""))
        fields = error.get("fields") if isinstance(error.get("fields"), dict) else {}
    else:
        code, message, fields = f"http:{status}", raw[:200].decode("utf-8", "replace"), {}
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else ApiError)
    return cls(status, code, message, fields, retry_after_s)
