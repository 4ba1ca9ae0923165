"""OpenAPI post-processing: the error envelope on every operation, and Idempotency-Key on
every state-changing one (drf-spectacular POSTPROCESSING_HOOKS)."""

from __future__ import annotations

from typing import Any

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "fields"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "fields": {
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": {"type": "string"}},
                },
            },
        }
    },
}
_ERRORS = {
    "400": "Invalid input",
    "401": "Not authenticated",
    "402": "Insufficient funds",
    "403": "Forbidden (CSRF)",
    "404": "Not found (or not yours)",
    "405": "Method not allowed",
    "406": "Not acceptable",
    "409": "Conflict (state, or an Idempotency-Key still in progress)",
    "415": "Unsupported media type",
    "422": "Idempotency-Key reused with a different request, or client order id reused",
    "429": "Throttled (see Retry-After)",
    "503": "Temporarily unavailable",
}
_WRITE_METHODS = ("post", "put", "patch", "delete")
IDEMPOTENCY_PARAMETER = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Same key and body: the first response is replayed and nothing changes "
    "again; same key, different body: 422; still in progress: 409. Kept 24 h.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
}


def add_error_responses(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components["Error"] = ERROR_SCHEMA
    ref = {"$ref": "#/components/schemas/Error"}
    retry_after = {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds to wait"}}
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            for code, description in _ERRORS.items():
                content = {"application/json": {"schema": ref}}
                entry: dict[str, Any] = {"description": description, "content": content}
                if code == "429":
                    entry["headers"] = retry_after
                responses.setdefault(code, entry)
            if method in _WRITE_METHODS:
                operation.setdefault("parameters", []).append(IDEMPOTENCY_PARAMETER)
    return result


def only_api_endpoints(endpoints: list[tuple[Any, ...]], **kwargs: Any) -> list[tuple[Any, ...]]:
    """Document the API under /api/ only (the payments API is also mounted at /payments/api/
    for its pages; documenting it twice would give clients two names for one thing)."""
    return [endpoint for endpoint in endpoints if endpoint[0].startswith("/api/")]
