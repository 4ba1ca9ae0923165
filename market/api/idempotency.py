"""`Idempotency-Key` on state-changing endpoints (IETF draft-ietf-httpapi-idempotency-key).

- Same key, same request (method, path, body): the first response is replayed (with
  ``Idempotent-Replayed: true``) and nothing changes again.
- Same key, different request: 422 ``api:idempotency-key-reused``.
- Same key while the first request is still running: 409 ``api:idempotency-in-progress``.

Keys are scoped to the authenticated user and kept for 24 hours. Responses below 500 are
stored, refusals included (a retried refusal is refused the same way), in the same database
transaction as the handler's own effects; a 5xx or a crash rolls those back and deletes the
record so the request can be retried. A record left in progress by a killed
process is taken over after ``IN_PROGRESS_LEASE``. The key is optional: without it a request is
simply executed. Requests without a user (creating a token with a password) are not recorded.

Order placements and cancels (``commits_alone``) are the exception to "in the same
transaction": there the handler runs in autocommit, so the matching engine commits the
placement alone and releases the problem's order book at its COMMIT (issue 14: no Python
work while the book is locked), and the response is stored afterwards, in a transaction of
its own. The engine itself recognises a retry: a placement sent with an Idempotency-Key and
no ``client_order_id`` takes :func:`derived_client_order_id` as its client order id, so a
retry after the stored response was lost answers the order already placed instead of placing
a second one: at once after a 5xx (its record is deleted), after ``IN_PROGRESS_LEASE`` when
the process died between the two commits (until then the record is in progress: 409, while
the order exists). A retried cancel whose response was lost is refused, and that refusal
stored, with ``market:order-not-open`` (the order is cancelled once). docs/api.md,
"Idempotency-Key", says the same to clients.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.core.files.uploadedfile import UploadedFile
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.response import Response

from domain.rows import insert_unless_exists
from market.api.errors import ApiError
from market.api.models import IdempotencyRecord

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
RETENTION = timedelta(hours=24)
IN_PROGRESS_LEASE = timedelta(minutes=5)
_REPLAYED_HEADERS = ("Location", "ETag")


def idempotent(
    handler: Callable[..., Response] | None = None,
    *,
    secret_fields: tuple[str, ...] = (),
    commits_alone: bool = False,
) -> Any:
    """Wrap a view method (post/patch/put/delete) with Idempotency-Key semantics.

    Runs after authentication, permissions and throttling (inside the view's handler).
    ``secret_fields`` of the response body are never stored: a replay answers them as null
    (a new API token's key is shown once and stored only hashed, also here).
    ``commits_alone``: the handler's effects commit by themselves and are idempotent in the
    service (the order endpoints, see the module's docstring); its response is stored after.
    """
    if handler is None:
        return functools.partial(
            idempotent, secret_fields=secret_fields, commits_alone=commits_alone
        )

    @functools.wraps(handler)
    def wrapper(view: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = request.headers.get(HEADER)
        user = request.user
        if key is None or not (user and user.is_authenticated):
            return handler(view, request, *args, **kwargs)
        if not 1 <= len(key) <= MAX_KEY_LENGTH or not key.isprintable():
            raise ApiError(
                code="api:invalid-idempotency-key",
                message=f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable characters",
                status=400,
                fields={HEADER: ["invalid"]},
            )
        fingerprint = request_fingerprint(request)
        record = _claim(user_id=user.pk, key=key, request=request, fingerprint=fingerprint)
        if record.state == IdempotencyRecord.State.COMPLETED:
            return _replay(record)
        if commits_alone:
            return _run_then_store(handler, view, request, args, kwargs, record, secret_fields)
        # The handler's effects and the stored response commit together: a process that dies
        # between the two leaves neither, and the key is free to retry after the lease.
        try:
            with transaction.atomic():
                try:
                    with transaction.atomic():  # a refusal rolls back to here, not further
                        response = handler(view, request, *args, **kwargs)
                except Exception as exc:
                    response = view.handle_exception(exc)  # re-raises what is not an API error
                if response.status_code >= 500:
                    raise _NotStored(response)
                _complete(record, response, secret_fields)
        except _NotStored as not_stored:
            IdempotencyRecord.objects.filter(pk=record.pk).delete()
            return not_stored.response
        except BaseException:
            IdempotencyRecord.objects.filter(pk=record.pk).delete()
            raise
        return response

    return wrapper


def _run_then_store(
    handler: Callable[..., Response],
    view: Any,
    request: Request,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    record: IdempotencyRecord,
    secret_fields: tuple[str, ...],
) -> Response:
    """The handler in autocommit (its effects commit alone), then its response stored."""
    try:
        try:
            response = handler(view, request, *args, **kwargs)
        except Exception as exc:
            response = view.handle_exception(exc)  # re-raises what is not an API error
        if response.status_code >= 500:
            IdempotencyRecord.objects.filter(pk=record.pk).delete()
            return response
        _complete(record, response, secret_fields)  # one UPDATE: atomic by itself
    except BaseException:
        IdempotencyRecord.objects.filter(pk=record.pk).delete()
        raise
    return response


def derived_client_order_id(request: Request) -> str | None:
    """The client order id a placement takes from its Idempotency-Key, or None without one.

    ``idem-`` and 48 hex digits of the key's sha256: within the 64 characters of a client
    order id, per user like the key (the engine's client order ids are per owner).
    """
    key = request.headers.get(HEADER)
    user = request.user
    if key is None or not (user and user.is_authenticated):
        return None
    return "idem-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:48]


class _NotStored(Exception):
    """A 5xx response: its effects are rolled back and the key is freed for a retry."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def _complete(
    record: IdempotencyRecord, response: Response, secret_fields: tuple[str, ...] = ()
) -> None:
    """Store the first response of a key: in the handler's transaction, or right after its
    effects committed alone (``commits_alone``).

    One UPDATE written once (:func:`_complete_sql`); the body is serialised once, as the
    JSON text PostgreSQL stores (the ORM's update compiled the statement per request and
    serialised the body a second time).
    """
    body = response.data
    if isinstance(body, dict) and any(name in body for name in secret_fields):
        body = {**body, **{name: None for name in secret_fields if name in body}}
    headers = {h: response[h] for h in _REPLAYED_HEADERS if response.has_header(h)}
    with connection.cursor() as cursor:
        cursor.execute(
            _complete_sql(),
            [
                IdempotencyRecord.State.COMPLETED.value,
                response.status_code,
                json.dumps(body, cls=DjangoJSONEncoder),
                json.dumps(headers),
                timezone.now(),
                record.pk,
            ],
        )


@functools.cache
def _complete_sql() -> str:
    meta = IdempotencyRecord._meta
    quote = connection.ops.quote_name
    column = {name: quote(meta.get_field(name).column) for name in _COMPLETED_COLUMNS}
    return (
        f"UPDATE {quote(meta.db_table)} SET {column['state']} = %s,"  # noqa: S608 - names from the model
        f" {column['response_status']} = %s, {column['response_body']} = %s::jsonb,"
        f" {column['response_headers']} = %s::jsonb, {column['completed_at']} = %s"
        f" WHERE {quote(meta.pk.column)} = %s"
    )


_COMPLETED_COLUMNS = (
    "state",
    "response_status",
    "response_body",
    "response_headers",
    "completed_at",
)


def request_fingerprint(request: Request) -> str:
    """sha256 of method, path and the parsed body (uploaded files by their content hash).

    Parsed, not raw: a multipart body's boundary changes from one send to the next.
    """
    data: Any = request.data
    if hasattr(data, "lists"):  # a QueryDict (form or multipart)
        body: Any = {k: sorted(str(v) for v in values) for k, values in data.lists()}
    else:
        body = data
    files = {}
    for name, upload in sorted(request.FILES.items()):
        files[name] = _file_sha256(upload)
    payload = json.dumps(
        {"method": request.method, "path": request.path, "body": body, "files": files},
        sort_keys=True,
        cls=DjangoJSONEncoder,
        default=str,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _file_sha256(upload: UploadedFile) -> str:
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()


def _claim(*, user_id: int, key: str, request: Request, fingerprint: str) -> IdempotencyRecord:
    """Insert the in-progress record, or return/refuse on the existing one."""
    for _ in range(3):
        record = IdempotencyRecord(
            user_id=user_id,
            key=key,
            method=request.method or "",
            path=request.path[:500],
            request_sha256=fingerprint,
        )
        if insert_unless_exists(record, ("user_id", "key")):  # no savepoint needed
            return record
        existing = IdempotencyRecord.objects.filter(user_id=user_id, key=key).first()
        if existing is None:
            continue  # deleted meanwhile (a 5xx): try to claim again
        now = timezone.now()
        expired = existing.created_at < now - RETENTION
        stale = (
            existing.state == IdempotencyRecord.State.IN_PROGRESS
            and existing.created_at < now - IN_PROGRESS_LEASE
        )
        if expired or stale:
            IdempotencyRecord.objects.filter(
                pk=existing.pk, created_at=existing.created_at
            ).delete()
            continue
        if existing.request_sha256 != fingerprint:
            raise ApiError(
                code="api:idempotency-key-reused",
                message=f"this {HEADER} was already used for a different request",
                status=422,
                fields={HEADER: ["already used for a different request"]},
            )
        if existing.state == IdempotencyRecord.State.IN_PROGRESS:
            raise ApiError(
                code="api:idempotency-in-progress",
                message=f"a request with this {HEADER} is still in progress; retry later",
                status=409,
            )
        return existing
    raise ApiError(
        code="api:idempotency-in-progress",
        message=f"a request with this {HEADER} is contended; retry later",
        status=409,
    )


def _replay(record: IdempotencyRecord) -> Response:
    assert record.response_status is not None
    headers = dict(record.response_headers or {})
    headers["Idempotent-Replayed"] = "true"
    return Response(record.response_body, status=record.response_status, headers=headers)
