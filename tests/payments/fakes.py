"""A fake Stripe transport at the library's HTTP-client seam.

The real ``stripe`` library builds every request (auth, Stripe-Version, Idempotency-Key, form
or JSON encoding) and parses every answer into objects or typed errors; only the socket is
replaced. Each request is recorded; answers are queued per (method, path) and consumed in
order, and an unexpected request fails the test.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections import defaultdict, deque
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import stripe


@dataclasses.dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: str
    query: str = ""

    @property
    def form(self) -> dict[str, str]:
        return dict(parse_qsl(self.body or "", keep_blank_values=True))

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    @property
    def idempotency_key(self) -> str | None:
        return self.headers.get("Idempotency-Key")


class FakeStripeHTTP(stripe.HTTPClient):
    name = "fake"

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[RecordedRequest] = []
        self._answers: dict[tuple[str, str], deque[tuple[int, dict[str, Any]]]] = defaultdict(deque)
        self._lock = threading.Lock()

    def answer(self, method: str, path: str, status: int, body: dict[str, Any]) -> None:
        self._answers[(method.upper(), path)].append((status, body))

    def requests_to(self, method: str, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == method.upper() and r.path == path]

    def request(self, method, url, headers, post_data=None, *, _usage=None):  # type: ignore[override]
        parts = urlsplit(url)
        path = parts.path
        body = post_data.decode() if isinstance(post_data, bytes) else (post_data or "")
        with self._lock:
            self.requests.append(
                RecordedRequest(method.upper(), path, dict(headers or {}), body, parts.query)
            )
            queue = self._answers.get((method.upper(), path))
            if not queue:
                raise AssertionError(f"unexpected Stripe request {method.upper()} {path}")
            status, answer = queue.popleft()
        return json.dumps(answer), status, {"Request-Id": f"req_{len(self.requests)}"}

    def request_stream(self, method, url, headers, post_data=None, *, _usage=None):  # type: ignore[override]
        raise AssertionError("streaming is not used")

    def close(self) -> None:
        pass


def checkout_session(session_id: str, url: str | None = None) -> dict[str, Any]:
    return {
        "id": session_id,
        "object": "checkout.session",
        "mode": "payment",
        "status": "open",
        "payment_status": "unpaid",
        "url": url or f"https://checkout.stripe.com/c/pay/{session_id}",
    }


def transfer(transfer_id: str, amount: int, destination: str) -> dict[str, Any]:
    return {
        "id": transfer_id,
        "object": "transfer",
        "amount": amount,
        "currency": "usd",
        "destination": destination,
        "reversed": False,
    }


def v2_account(account_id: str, *, transfers_status: str, due: str | None) -> dict[str, Any]:
    return {
        "id": account_id,
        "object": "v2.core.account",
        "applied_configurations": ["recipient"],
        "dashboard": "express",
        "livemode": False,
        "created": "2026-11-30T11:00:00.000Z",
        "configuration": {
            "recipient": {
                "applied": True,
                "capabilities": {
                    "stripe_balance": {
                        "stripe_transfers": {"requested": True, "status": transfers_status}
                    }
                },
            }
        },
        "requirements": {
            "entries": [],
            "summary": {"minimum_deadline": {"status": due} if due else None},
        },
    }


def account_link(account_id: str) -> dict[str, Any]:
    return {
        "object": "v2.core.account_link",
        "account": account_id,
        "created": "2026-11-30T11:00:00.000Z",
        "expires_at": "2026-11-30T11:10:00.000Z",
        "livemode": False,
        "url": f"https://accounts.stripe.com/r/{account_id}#alu_test",
        "use_case": {"type": "account_onboarding"},
    }


def error(status: int, type_: str, code: str | None, message: str) -> dict[str, Any]:
    body: dict[str, Any] = {"type": type_, "message": message}
    if code:
        body["code"] = code
    return {"error": body}
