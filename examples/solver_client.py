#!/usr/bin/env python3
"""A FormalMarket solver in one file, standard library only: copy it and adapt it.

It fetches a demo problem, submits your solution, waits for the verdict (cheap polling with
ETag / If-None-Match), and, when ACCEPTED, lists an ask for it (by default at the best bid, so
on a demo problem it sells to the practice bot at once).

    python examples/solver_client.py --base-url http://127.0.0.1:8000 \\
        --username alice --password '...' --problem demo-factor-391 --solution '17 23'

Authentication: --token KEY (or FORMALMARKET_TOKEN), or --username/--password, which creates
a token through POST /api/v1/tokens/ (the key is shown once: keep it). Every write carries an
Idempotency-Key, so a request retried after a timeout never submits or sells twice.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any


class ApiError(Exception):
    """An error answered by the API: ``{"error": {"code", "message", "fields"}}``."""

    def __init__(self, status: int, code: str, message: str, fields: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}: {message} {fields or ''}".strip())
        self.status, self.code, self.message, self.fields = status, code, message, fields


class Client:
    def __init__(self, base_url: str, token: str | None = None, timeout_s: float = 30.0) -> None:
        if urllib.parse.urlsplit(base_url).scheme not in ("http", "https"):
            raise SystemExit(f"--base-url must be http(s)://..., not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s

    def request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        headers: dict[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[int, dict[str, str], Any]:
        """One call; retries a 429 after its Retry-After. Returns (status, headers, json)."""
        url = path if path.startswith("http") else self.base_url + path
        data = json.dumps(body).encode() if body is not None else None
        all_headers = {"Accept": "application/json", **(headers or {})}
        if data is not None:
            all_headers["Content-Type"] = "application/json"
        if self.token:
            all_headers["Authorization"] = f"Token {self.token}"
        if method != "GET":
            # The same key on a retry: the server replays the first answer, nothing twice.
            all_headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        for _ in range(5):
            # The scheme is checked in __init__ (http or https only).
            request = urllib.request.Request(url, data=data, method=method, headers=all_headers)  # noqa: S310
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:  # noqa: S310
                    raw = response.read()
                    return response.status, dict(response.headers), json.loads(raw or b"null")
            except urllib.error.HTTPError as exc:
                raw = exc.read()
                if exc.code == 304:
                    return 304, dict(exc.headers), None
                if exc.code == 429:
                    time.sleep(float(exc.headers.get("Retry-After", "1")))
                    continue
                try:
                    error = json.loads(raw)["error"]
                except (ValueError, KeyError, TypeError):
                    error = {"code": "http", "message": raw[:200].decode("utf-8", "replace")}
                raise ApiError(
                    exc.code,
                    error.get("code", ""),
                    error.get("message", ""),
                    error.get("fields", {}),
                ) from None
        raise ApiError(429, "api:throttled", "still throttled after 5 attempts", {})

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)[2]

    def post(self, path: str, body: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        return self.request("POST", path, body, **kwargs)[2]


def create_token(client: Client, username: str, password: str) -> str:
    body = {"name": "solver_client", "username": username, "password": password}
    return str(client.post("/api/v1/tokens/", body)["key"])


def find_demo_problem(client: Client, wanted: str | None) -> dict[str, Any]:
    """A published demo problem with a Python verifier: by id or slug, else the first one."""
    url = "/api/v1/problems/?demo=true&language=python&limit=200"
    problems = client.get(url)["results"]
    for problem in problems:
        if wanted is None or wanted in (str(problem["id"]), problem["slug"]):
            return dict(client.get(f"/api/v1/problems/{problem['id']}/"))
    raise SystemExit(f"no demo problem {wanted!r}; try one of {[p['slug'] for p in problems]}")


def submit(client: Client, verifier_id: int, text: str) -> dict[str, Any]:
    """POST the solution: 202 Accepted with its URL in Location; judging is asynchronous."""
    return dict(client.post("/api/v1/solutions/", {"verifier": verifier_id, "text": text}))


def wait_for_verdict(client: Client, solution: dict[str, Any], timeout_s: float = 120.0) -> Any:
    """Poll the small status resource with If-None-Match: unchanged answers are 304, no body."""
    url = solution["url"].rstrip("/") + "/status/"
    etag, state, delay = None, None, 0.5
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        headers = {"If-None-Match": etag} if etag else {}
        status, response_headers, body = client.request("GET", url, headers=headers)
        if status == 200:
            etag, state = response_headers.get("ETag"), body
            if body["status"] in ("accepted", "rejected"):
                return body
            if body["pending_reason"]:
                print(f"  still pending: {body['pending_reason']}")
        time.sleep(delay)
        delay = min(delay * 1.5, 5.0)
    raise SystemExit(f"no verdict within {timeout_s:.0f} s; last state: {state}")


def list_ask(
    client: Client, problem: dict[str, Any], solution_id: int, price_minor: int | None
) -> dict[str, Any]:
    """Offer copies of an ACCEPTED solution; by default at the best bid (an immediate sale)."""
    if price_minor is None:
        book = client.get(f"/api/v1/problems/{problem['id']}/book/")
        price_minor = book["bids"][0]["price_minor"] if book["bids"] else 100
    body = {
        "side": "ask",
        "solution": solution_id,
        "price_minor": price_minor,
        "currency": problem["currency"],
        "quantity": 1,
        # Our own id for the order: sending it again returns the same order.
        "client_order_id": f"ask-{solution_id}-{price_minor}",
    }
    return dict(client.post("/api/v1/orders/", body))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--token", default=os.environ.get("FORMALMARKET_TOKEN"))
    parser.add_argument("--username")
    parser.add_argument("--password")
    parser.add_argument("--problem", help="id or slug of a demo problem (default: the first)")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--solution", help="the solution text")
    group.add_argument("--solution-file", help="a file holding the solution (<= 64 KB)")
    parser.add_argument("--ask-price-minor", type=int, help="default: the best bid")
    parser.add_argument("--timeout-s", type=float, default=120.0)
    args = parser.parse_args(argv)

    client = Client(args.base_url, args.token)
    if not client.token:
        if not (args.username and args.password):
            parser.error("give --token (or FORMALMARKET_TOKEN), or --username and --password")
        client.token = create_token(client, args.username, args.password)
        print("created an API token (shown once; keep it): " + client.token)

    if args.solution_file:
        with open(args.solution_file, encoding="utf-8") as handle:
            text = handle.read()
    else:
        text = args.solution
    try:
        problem = find_demo_problem(client, args.problem)
        verifier = problem["verifiers"][0]
        print(f"problem {problem['id']} {problem['title']!r} ({problem['currency']})")
        print(f"  solution format: {verifier['active_version']['solution_format']}")
        solution = submit(client, verifier["id"], text)
        print(f"submitted solution {solution['id']}: {solution['url']}")
        verdict = wait_for_verdict(client, solution, args.timeout_s)
        print(f"verdict: {verdict['verdict']['verdict']} {verdict['verdict']['reason'] or ''}")
        if verdict["status"] != "accepted":
            print(f"  detail: {verdict['verdict']['detail']}")
            return 1
        order = list_ask(client, problem, solution["id"], args.ask_price_minor)
        sold = ", ".join(f"{f['price_minor']} (fee {f['fee_minor']})" for f in order["fills"])
        print(
            f"ask {order['id']} at {order['price_minor']} {order['currency']}: {order['status']}"
            + (f"; sold at {sold}" if sold else "")
        )
        balances = client.get("/api/v1/account/balances/")
        for balance in balances:
            if balance["currency"] == problem["currency"]:
                print(f"balance: {balance['available_minor']} available (minor units)")
    except ApiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
