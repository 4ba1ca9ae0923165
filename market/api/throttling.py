"""Rate limits: one atomic counter, used by the API throttles, the page forms that write and
the per-address bound on password guesses.

The counters live in Redis (``REDIS_URL``, shared by every web process): a hit is one Lua
script, ``INCR`` then ``EXPIRE`` on the first hit, run atomically by the server: concurrent
requests can never overwrite each other's counts, which the previous read/append/write-back of
DRF's ``SimpleRateThrottle`` did (480 requests from 48 threads passed a 120/min limit). A window
starts at the first hit of a key and lasts ``window_s``; a throttled call gets 429 with
``Retry-After`` (the seconds left in the window).

When Redis does not answer (a restart, a blip), nothing passes uncounted: the request is
answered 503 ``api:unavailable`` with ``Retry-After: UNAVAILABLE_RETRY_AFTER_S`` (the API's
JSON envelope under /api/, the product's 503 page elsewhere; :class:`UnavailableMiddleware`),
never a 500.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from typing import Any

import redis
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
KEY_PREFIX = "fm-rate:"
# What a caller is told to wait when the counters' Redis does not answer: its restart or a
# failover takes seconds.
UNAVAILABLE_RETRY_AFTER_S = 5
UNAVAILABLE_MESSAGE = "the service is briefly unavailable; try again in a few seconds"

logger = logging.getLogger(__name__)

_HIT_SCRIPT = """
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
"""


@dataclasses.dataclass(frozen=True)
class RateDecision:
    is_allowed: bool
    count: int
    retry_after_s: int


class CountersUnavailable(exceptions.APIException):
    """Redis, which holds the rate counters, did not answer: 503 with ``Retry-After``."""

    status_code = 503
    default_detail = UNAVAILABLE_MESSAGE
    error_code = "api:unavailable"
    wait = UNAVAILABLE_RETRY_AFTER_S


class UnavailableMiddleware:
    """Outside DRF (page forms, the login page): :class:`CountersUnavailable` becomes the 503
    answer for the path (JSON under /api/, else the product's page) with ``Retry-After``."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if not isinstance(exc, CountersUnavailable):
            return None
        from market.views.errors import error_response

        response = error_response(request, 503, code=exc.error_code, message=str(exc.detail))
        response["Retry-After"] = str(UNAVAILABLE_RETRY_AFTER_S)
        return response


_client_lock = threading.Lock()
_clients: dict[str, Any] = {}


def _redis() -> Any:
    url = settings.REDIS_URL
    with _client_lock:
        if url not in _clients:
            client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
            _clients[url] = (client, client.register_script(_HIT_SCRIPT))
        return _clients[url]


def hit(*, key: str, limit: int, window_s: int) -> RateDecision:
    """Count one event under ``key``; allowed while the window's count <= ``limit``.

    Redis not answering raises :class:`CountersUnavailable` (503): the request fails rather
    than passing unthrottled.
    """
    _, script = _redis()
    try:
        count, retry_after_s = (int(v) for v in script(keys=[KEY_PREFIX + key], args=[window_s]))
    except redis.RedisError as error:
        logger.warning("rate counters unavailable (%s): answering 503", error)
        raise CountersUnavailable from error
    return RateDecision(is_allowed=count <= limit, count=count, retry_after_s=max(1, retry_after_s))


def peek(*, key: str) -> int:
    """The count under ``key`` in its current window, without counting."""
    client, _ = _redis()
    try:
        return int(client.get(KEY_PREFIX + key) or 0)
    except redis.RedisError as error:
        logger.warning("rate counters unavailable (%s): answering 503", error)
        raise CountersUnavailable from error


def client_address(request: Any) -> str:
    """The client's address: ``REMOTE_ADDR``, unless ``NUM_PROXIES`` says how many proxies in
    front of the server append to ``X-Forwarded-For``.

    DRF's default with ``NUM_PROXIES`` unset takes the whole ``X-Forwarded-For`` header, which
    the client writes: a new header value per request was a new bucket, so anonymous calls
    (token creation with a password: password guessing) were never throttled.
    """
    meta = request.META
    if api_settings.NUM_PROXIES:
        forwarded = meta.get("HTTP_X_FORWARDED_FOR")
        if forwarded:
            addresses = [a.strip() for a in forwarded.split(",")]
            return addresses[-min(api_settings.NUM_PROXIES, len(addresses))]
    return str(meta.get("REMOTE_ADDR") or "unknown")


def user_ident(request: Any) -> str:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user-{user.pk}"
    return f"anon-{client_address(request)}"


class _UserThrottle(SimpleRateThrottle):
    """Per user (per client address for anonymous callers); the rate from ``scope``."""

    def applies_to(self, request: Request) -> bool:
        raise NotImplementedError

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not self.applies_to(request):
            return None
        return f"throttle:{self.scope}:{user_ident(request)}"

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        assert self.num_requests is not None and self.duration is not None
        decision = hit(key=key, limit=self.num_requests, window_s=self.duration)
        self._retry_after_s = decision.retry_after_s
        return decision.is_allowed

    def wait(self) -> float | None:
        return float(getattr(self, "_retry_after_s", 1))


class ReadThrottle(_UserThrottle):
    scope = "read"

    def applies_to(self, request: Request) -> bool:
        return request.method in SAFE_METHODS


class WriteThrottle(_UserThrottle):
    scope = "write"

    def applies_to(self, request: Request) -> bool:
        return request.method not in SAFE_METHODS


def page_write_decision(request: Any) -> RateDecision:
    """Count a page form's write in the same per-user bucket as the API's writes."""
    throttle = WriteThrottle()
    assert throttle.num_requests is not None and throttle.duration is not None
    return hit(
        key=f"throttle:write:{user_ident(request)}",
        limit=throttle.num_requests,
        window_s=throttle.duration,
    )
