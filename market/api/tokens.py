"""Creating and revoking API tokens (the writes of the token resource)."""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from domain.rows import column_list, fetch_row, instance_with_related
from market.api.models import ApiToken
from market.exceptions import NotFound, UserError
from market.services.accounts import lock_user_row

KEY_PREFIX = "fm"
# fm_<12 hex>_<43 url-safe base64 characters>: anything else is not a key (and never reaches
# the database).
_KEY_SHAPE = re.compile(r"^fm_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$")
MAX_ACTIVE_TOKENS = 20
# Writing last_used_at on every request would make each read a write: once a minute is enough.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class InvalidToken(UserError):
    """A token request is refused (bad name, too many active tokens)."""

    code = "api:invalid-token-request"


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _active_token_with_user(*, prefix: str) -> ApiToken | None:
    """The active token of ``prefix`` with its user, in one statement written once.

    Every API request authenticates here first: the ORM compiled the same select_related
    query for each (about half a millisecond of the request's ~4 ms of web CPU, issue 29);
    this is its SQL, built once from the models, and its row becomes the same two instances.
    """
    sql, token_fields, user_fields = _token_query()
    row = fetch_row(sql, [prefix])
    if row is None:
        return None
    return instance_with_related(ApiToken, token_fields, row, "user", user_fields)


@functools.cache
def _token_query() -> tuple[str, list[Any], list[Any]]:
    """The token lookup's SQL and the fields of its two halves (built once per process)."""
    user_key: Any = ApiToken._meta.get_field("user")
    user_meta = user_key.related_model._meta
    token_fields = list(ApiToken._meta.concrete_fields)
    user_fields = list(user_meta.concrete_fields)
    quote = connection.ops.quote_name
    sql = (
        f"SELECT {column_list(token_fields, 't')}, {column_list(user_fields, 'u')}"  # noqa: S608 - names from the models
        f" FROM {quote(ApiToken._meta.db_table)} t JOIN {quote(user_meta.db_table)} u"
        f" ON u.{quote(user_meta.pk.column)} = t.{quote(user_key.column)}"
        " WHERE t.prefix = %s AND t.revoked_at IS NULL ORDER BY t.id LIMIT 1"
    )
    return sql, token_fields, user_fields


def create_api_token(*, user: AbstractBaseUser, name: str) -> tuple[ApiToken, str]:
    """Create a token for ``user``; returns the row and the key, which is never stored."""
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise InvalidToken("invalid token name", fields={"name": ["1 to 100 characters"]})
    with transaction.atomic():
        # The cap is a count: without the user's row locked, concurrent creates all see room.
        lock_user_row(user_id=user.pk)
        active = ApiToken.objects.filter(user_id=user.pk, revoked_at__isnull=True).count()
        if active >= MAX_ACTIVE_TOKENS:
            raise InvalidToken(
                f"at most {MAX_ACTIVE_TOKENS} active tokens; revoke one first",
                fields={"name": ["too many active tokens"]},
            )
        prefix = secrets.token_hex(6)
        key = f"{KEY_PREFIX}_{prefix}_{secrets.token_urlsafe(32)}"
        token = ApiToken.objects.create(
            user_id=user.pk, name=name, prefix=prefix, key_sha256=hash_key(key)
        )
    return token, key


def list_api_tokens(*, user: AbstractBaseUser) -> QuerySet[ApiToken]:
    """The user's tokens, newest first (their keys are not stored, so never shown again)."""
    return ApiToken.objects.filter(user_id=user.pk).order_by("-id")


def revoke_api_token(*, user: AbstractBaseUser, token_id: int) -> ApiToken:
    """Revoke one of the user's tokens (revoking twice changes nothing)."""
    token = ApiToken.objects.filter(pk=token_id, user_id=user.pk).first()
    if token is None:
        raise NotFound("no such token")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def find_active_token(key: str) -> ApiToken | None:
    """The active token whose key is ``key``, compared in constant time; marks it used."""
    if not _KEY_SHAPE.match(key):
        return None
    parts = key.split("_", 2)
    token = _active_token_with_user(prefix=parts[1])
    if token is None or not hmac.compare_digest(token.key_sha256, hash_key(key)):
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_RESOLUTION)
        ).update(last_used_at=now)
    return token
