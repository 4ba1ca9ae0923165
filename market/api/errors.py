"""The API's one exception handler and the catch-all JSON 404 under /api/.

Every error is ``{"error": {"code": str, "message": str, "fields": {name: [str]}}}``. Domain
errors (:mod:`market.exceptions`) carry their own code and status; DRF's errors get stable
``api:`` codes. Anything else is a bug: it is logged and answered with a JSON 500.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

from market.exceptions import DomainError, PlatformError

logger = logging.getLogger(__name__)

_DRF_CODES: dict[type[exceptions.APIException], str] = {
    exceptions.ValidationError: "api:invalid",
    exceptions.ParseError: "api:parse-error",
    exceptions.AuthenticationFailed: "api:authentication-failed",
    exceptions.NotAuthenticated: "api:not-authenticated",
    exceptions.PermissionDenied: "api:permission-denied",
    exceptions.NotFound: "not-found",
    exceptions.MethodNotAllowed: "api:method-not-allowed",
    exceptions.NotAcceptable: "api:not-acceptable",
    exceptions.UnsupportedMediaType: "api:unsupported-media-type",
    exceptions.Throttled: "api:throttled",
}


class ApiError(exceptions.APIException):
    """An API-level refusal with a stable code (idempotency conflicts, bad headers)."""

    def __init__(
        self, *, code: str, message: str, status: int, fields: dict[str, list[str]] | None = None
    ) -> None:
        super().__init__(message)
        self.status_code = status
        self.error_code = code
        self.fields = fields or {}


def error_body(code: str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DomainError):
        if isinstance(exc, PlatformError):
            logger.warning("platform error %s: %s", exc.code, exc.message)
        set_rollback()
        return Response(error_body(exc.code, exc.message, exc.fields), status=exc.http_status)
    if isinstance(exc, ApiError):
        set_rollback()
        return Response(
            error_body(exc.error_code, str(exc.detail), exc.fields), status=exc.status_code
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound("not found")
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, SuspiciousOperation):
        # Oversized or malformed request bodies (RequestDataTooBig, bad multipart, ...).
        exc = exceptions.ParseError(str(exc) or "malformed request")
    if not isinstance(exc, exceptions.APIException):
        return None  # a bug: Django answers 500 (JSON under /api/: market.views.errors)

    headers: dict[str, str] = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
    if getattr(exc, "wait", None):
        headers["Retry-After"] = str(int(exc.wait))  # type: ignore[attr-defined]
    code = getattr(exc, "error_code", None) or next(
        (c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), "api:error"
    )
    if isinstance(exc, exceptions.ValidationError):
        message, fields = "invalid input", _flatten(exc.detail)
    else:
        message, fields = _text(exc.detail), {}
    set_rollback()
    return Response(error_body(code, message, fields), status=exc.status_code, headers=headers)


def _text(detail: Any) -> str:
    if isinstance(detail, list | tuple):
        return "; ".join(_text(d) for d in detail)
    if isinstance(detail, dict):
        return "; ".join(f"{k}: {_text(v)}" for k, v in detail.items())
    return str(detail)


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail as ``{"field" or "field.sub": [messages]}``."""
    fields: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = "non_field_errors" if key == "non_field_errors" and not prefix else str(key)
            fields.update(_flatten(value, f"{prefix}{name}" if not prefix else f"{prefix}.{name}"))
    elif isinstance(detail, list | tuple):
        if all(not isinstance(d, dict | list | tuple) for d in detail):
            fields.setdefault(prefix or "non_field_errors", []).extend(str(d) for d in detail)
        else:
            for index, item in enumerate(detail):
                fields.update(_flatten(item, f"{prefix}.{index}" if prefix else str(index)))
    else:
        fields.setdefault(prefix or "non_field_errors", []).append(str(detail))
    return fields


@csrf_exempt  # a 404 changes nothing; without this a POST gets Django's HTML CSRF page
def api_not_found(request: HttpRequest) -> HttpResponse:
    """The catch-all route under /api/: no such endpoint."""
    return JsonResponse(error_body("not-found", "no such endpoint"), status=404)
