"""One HTTP call with the API's conventions: token, JSON, Idempotency-Key, retries.

Retries: a 429 waits its ``Retry-After``; 500/502/503/504 and connection failures back off
exponentially (with jitter). A write keeps the same ``Idempotency-Key`` across its retries, so
the server runs it at most once and replays the first answer.
"""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from formalmarket_client.errors import TransportError, error_for

RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
USER_AGENT = "formalmarket-client/0.1"


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    headers: dict[str, str]
    body: Any


class Transport:
    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout_s: float = 30.0,
        max_retries: int = 5,
        backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"base_url must be http(s)://host[:port], not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.sleep = sleep
        self.retries_made = 0  # for programs (and tests) that want to know

    def _url(self, path: str) -> str:
        """``path`` on the base URL. An absolute URL from an answer (a ``next`` page, a
        ``Location``) keeps only its path and query: behind a proxy the server may name
        another host, and the token is only ever sent to ``base_url``."""
        if path.startswith(("http://", "https://")):
            parts = urllib.parse.urlsplit(path)
            path = parts.path + (f"?{parts.query}" if parts.query else "")
        if not path.startswith("/"):
            raise ValueError(f"not an API path: {path!r}")
        return self.base_url + path

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        if retry_after is not None:
            try:
                return min(max(float(retry_after), 0.0), self.max_backoff_s * 4)
            except ValueError:
                pass
        base = min(self.backoff_s * (2**attempt), self.max_backoff_s)
        return base * (0.5 + random.random() / 2)  # noqa: S311  (jitter, not security)

    def request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        headers: dict[str, str] | None = None,
        idempotency_key: str | None = None,
        authenticated: bool = True,
        timeout_s: float | None = None,
    ) -> Response:
        """One API call (with its retries). Raises a typed ApiError for a 4xx/5xx answer.
        ``timeout_s`` replaces the transport's for this call (a request the server holds)."""
        url = self._url(path)
        data = json.dumps(body).encode() if body is not None else None
        all_headers = {"Accept": "application/json", "User-Agent": USER_AGENT, **(headers or {})}
        if data is not None:
            all_headers["Content-Type"] = "application/json"
        if self.token and authenticated:
            all_headers["Authorization"] = f"Token {self.token}"
        if method not in ("GET", "HEAD"):
            all_headers["Idempotency-Key"] = idempotency_key or f"fmc-{uuid.uuid4()}"
        attempt = 0
        while True:
            request = urllib.request.Request(url, data=data, method=method, headers=all_headers)  # noqa: S310
            try:
                with urllib.request.urlopen(  # noqa: S310
                    request, timeout=timeout_s or self.timeout_s
                ) as answer:
                    raw = answer.read()
                    return Response(answer.status, dict(answer.headers), _json(raw))
            except urllib.error.HTTPError as exc:
                raw = exc.read()
                if exc.code == 304:
                    return Response(304, dict(exc.headers), None)
                retry_after = exc.headers.get("Retry-After")
                if exc.code in RETRIED_STATUSES and attempt < self.max_retries:
                    self.sleep(self._delay(attempt, retry_after))
                    attempt += 1
                    self.retries_made += 1
                    continue
                seconds = _seconds(retry_after)
                raise error_for(exc.code, _json(raw), seconds, raw) from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt < self.max_retries:
                    self.sleep(self._delay(attempt, None))
                    attempt += 1
                    self.retries_made += 1
                    continue
                reason = getattr(exc, "reason", exc)
                raise TransportError(f"cannot reach {self.base_url}: {reason}") from None


def _json(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _seconds(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
