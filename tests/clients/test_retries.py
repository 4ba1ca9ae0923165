"""The client's retries against a live server: 429 waits exactly its Retry-After, a lost
answer (a 502 from a proxy after the server did the work) is retried with the same
Idempotency-Key and the server replays it: one order, one hold."""

from __future__ import annotations

import http.client
import http.server
import threading
import urllib.parse

import pytest
from django.core.cache import caches
from formalmarket_client import FormalMarketClient, Money, Throttled

from market.api.throttling import ReadThrottle, WriteThrottle
from market.models import AccountKind, Order
from market.services.accounts import grant_demo_credits
from tests.market.helpers import balance


class LossyProxy:
    """Forwards to the live server; for the first ``lose`` requests matching (method, path)
    it forwards, lets the server answer, then tells the client 502 (the answer was lost)."""

    def __init__(self, upstream: str, lose: dict[tuple[str, str], int]) -> None:
        target = urllib.parse.urlsplit(upstream)
        self.lose = dict(lose)
        self.seen: list[tuple[str, str, dict[str, str], int]] = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                upstream_conn = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                upstream_conn.request(self.command, self.path, body=body, headers=headers)
                answer = upstream_conn.getresponse()
                payload = answer.read()
                key = (self.command, self.path.split("?")[0])
                proxy.seen.append((self.command, self.path, dict(self.headers), answer.status))
                if proxy.lose.get(key, 0) > 0:
                    proxy.lose[key] -= 1
                    self.send_response(502)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", "11")
                    self.end_headers()
                    self.wfile.write(b"Bad Gateway")
                    return
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_DELETE = _forward  # noqa: N815

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.django_db(transaction=True)
def test_a_throttled_client_waits_the_retry_after_then_succeeds(
    live_server, alice_token, monkeypatch
):
    monkeypatch.setattr(ReadThrottle, "THROTTLE_RATES", {"read": "2/min", "write": "100/min"})
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        caches["throttle"].clear()  # the throttle window passes while the client waits

    fm = FormalMarketClient(live_server.url, alice_token, sleep=sleep)
    results = [fm.balances() for _ in range(5)]

    assert all(r == results[0] for r in results)
    assert results[0]["DEMO"].available == Money(0, "DEMO")
    # Calls 3 and 5 were throttled once each (2 per window); each waited the server's
    # Retry-After, a whole number of seconds within the minute.
    assert len(waits) == 2 and fm.http.retries_made == 2
    assert all(w == int(w) and 1 <= w <= 60 for w in waits)

    caches["throttle"].clear()
    impatient = FormalMarketClient(live_server.url, alice_token, max_retries=0)
    impatient.balances()
    impatient.balances()
    with pytest.raises(Throttled) as throttled:
        impatient.balances()
    assert throttled.value.code == "api:throttled" and throttled.value.status == 429
    assert throttled.value.retry_after_s is not None and throttled.value.retry_after_s >= 1


@pytest.mark.django_db(transaction=True)
def test_a_lost_answer_to_a_bid_is_retried_once_with_the_same_idempotency_key(
    live_server, demo_market, alice, alice_token, monkeypatch
):
    monkeypatch.setattr(WriteThrottle, "THROTTLE_RATES", {"read": "600/min", "write": "600/min"})
    grant_demo_credits(user=alice, amount_minor=10_000)
    fm_direct = FormalMarketClient(live_server.url, alice_token)
    problem = fm_direct.problem("demo-factor-391")
    proxy = LossyProxy(live_server.url, {("POST", "/api/v1/orders/"): 2, ("GET", "/api/v1/me/"): 1})
    waits: list[float] = []
    try:
        fm = FormalMarketClient(proxy.url, alice_token, sleep=waits.append, backoff_s=0.1)
        assert fm.me()["username"] == "alice"  # a GET answered 502 once, then retried
        bid = fm.place_bid(problem, Money(250, "DEMO"), quantity=2)
    finally:
        proxy.close()

    posts = [s for s in proxy.seen if s[0] == "POST"]
    assert [status for *_, status in posts] == [201, 201, 201]
    keys = {headers["Idempotency-Key"] for _, _, headers, _ in posts}
    assert len(keys) == 1  # the same key on each attempt
    [order] = Order.objects.filter(owner=alice)
    assert (bid.id, bid.status, bid.remaining) == (order.pk, "open", 2)
    assert balance(alice, AccountKind.HELD) == 500  # held once, not three times
    assert balance(alice) == 10_000 - 500
    # Exponential backoff with jitter: 0.1 s then 0.2 s (each between half and all of it),
    # plus the GET's one retry.
    assert len(waits) == 3 and all(0.04 <= w <= 0.2 for w in waits)
