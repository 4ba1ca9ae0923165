#!/usr/bin/env python3
"""A FormalMarket solver in one file, standard library only: copy it and adapt it.

It fetches a demo problem (Python or Lean), submits your solution and gets its verdict in the
same request (the server holds the answer until the verdict: ?wait=), and, when ACCEPTED,
lists an ask for it (by default at the best bid, so on a demo problem it sells to the
practice bot at once).

    python examples/solver_client.py --base-url http://127.0.0.1:8000 \\
        --username alice --password '...' --problem demo-factor-391 --solution '17 23'

Authentication: --token KEY (or FORMALMARKET_TOKEN), or --username/--password: the first run
creates a token through POST /api/v1/tokens/ and saves it in --token-file (default
~/.config/formalmarket/tokens.json, mode 0600, the same file formalmarket_client uses); later
runs reuse it (a user may hold at most 20 active tokens). Every write carries an
Idempotency-Key, so a request retried after a timeout never submits or sells twice.

This file stays standard-library only so that it can be copied anywhere. For a program of
your own, use the typed package in clients/python (formalmarket_client); for an AI agent,
its MCP server (formalmarket-mcp). See docs/agents.md.
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
from pathlib import Path
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


def money(minor: int, currency: str) -> str:
    """12345 DEMO minor units as "123.45 DEMO" (both currencies have two decimals)."""
    sign = "-" if minor < 0 else ""
    whole, cents = divmod(abs(minor), 100)
    return f"{sign}{whole:,}.{cents:02d} {currency}"


def create_token(client: Client, username: str, password: str) -> str:
    body = {"name": "solver_client", "username": username, "password": password}
    return str(client.post("/api/v1/tokens/", body)["key"])


def default_token_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "formalmarket" / "tokens.json"


def _read_tokens(path: Path) -> dict[str, str]:
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return saved if isinstance(saved, dict) else {}


def saved_token(client: Client, path: Path, username: str) -> str | None:
    """The token saved for this server and user, if the server still accepts it."""
    token = _read_tokens(path).get(f"{client.base_url}|{username}")
    if not isinstance(token, str):
        return None
    client.token = token
    try:
        if client.get("/api/v1/me/")["username"] == username:
            return token
    except ApiError:
        pass  # revoked, or another server's: make a new one
    client.token = None
    return None


def save_token(client: Client, path: Path, username: str, token: str) -> None:
    saved = _read_tokens(path)
    saved[f"{client.base_url}|{username}"] = token
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_suffix(".tmp")
    with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
        json.dump(saved, handle)
    os.replace(tmp, path)


def find_demo_problem(client: Client, wanted: str | None) -> dict[str, Any]:
    """A published demo problem (Python or Lean): by id or slug, else the first one."""
    problems = client.get("/api/v1/problems/?demo=true&limit=200")["results"]
    for problem in problems:
        if wanted is None or wanted in (str(problem["id"]), problem["slug"]):
            return dict(client.get(f"/api/v1/problems/{problem['id']}/"))
    raise SystemExit(f"no demo problem {wanted!r}; try one of {[p['slug'] for p in problems]}")


def open_verifier(problem: dict[str, Any]) -> dict[str, Any]:
    """The problem's first verifier that takes submissions (has an active version)."""
    for verifier in problem["verifiers"]:
        if verifier.get("active_version"):
            return dict(verifier)
    raise SystemExit(f"problem {problem['slug']!r} takes no submissions right now")


def submit(client: Client, verifier_id: int, text: str, wait_s: float = 0.0) -> dict[str, Any]:
    """POST the solution: 202 Accepted with its URL in Location; judging is asynchronous.
    With ``wait_s`` the server holds the answer until the verdict (``?wait=``, up to 20 s
    here): one request, answered judged, or still pending (then :func:`wait_for_verdict`)."""
    held_s = round(min(20.0, wait_s), 3)
    path = f"/api/v1/solutions/?wait={held_s}" if held_s > 0 else "/api/v1/solutions/"
    return dict(client.post(path, {"verifier": verifier_id, "text": text}))


def wait_for_verdict(
    client: Client,
    solution: dict[str, Any],
    timeout_s: float = 120.0,
    *,
    started: float | None = None,
) -> Any:
    """Ask the small status resource to hold the answer until the verdict (``?wait=``, up to
    20 s a request); a server that answers at once is polled with If-None-Match (unchanged
    answers are 304, no body). ``timeout_s`` counts from ``started`` (``time.monotonic()``;
    default: now)."""
    url = solution["url"].rstrip("/") + "/status/"
    etag, state, delay = None, None, 0.5
    deadline = (time.monotonic() if started is None else started) + timeout_s
    while (remaining := deadline - time.monotonic()) > 0:
        held_s = round(min(20.0, remaining), 3)
        headers = {"If-None-Match": etag} if etag else {}
        asked = time.monotonic()
        status, response_headers, body = client.request(
            "GET", f"{url}?wait={held_s}", headers=headers
        )
        if status == 200:
            etag, state = response_headers.get("ETag"), body
            if body["status"] in ("accepted", "rejected"):
                return body
            if body["pending_reason"]:
                print(f"  still pending: {body['pending_reason']}")
        if time.monotonic() - asked < held_s / 2:  # not held: poll with a growing interval
            time.sleep(delay)
            delay = min(delay * 1.5, 5.0)
    reason = (state or {}).get("pending_reason") or "not judged yet"
    raise SystemExit(f"no verdict within {timeout_s:.0f} s ({reason}); try again later")


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
    parser.add_argument(
        "--token-file",
        type=Path,
        default=Path(os.environ.get("FORMALMARKET_TOKEN_FILE") or default_token_file()),
        help="where a token made from --username/--password is saved and reused",
    )
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
        try:
            client.token = saved_token(client, args.token_file, args.username)
            if client.token:
                print(f"using the API token saved in {args.token_file}")
            else:
                client.token = create_token(client, args.username, args.password)
                save_token(client, args.token_file, args.username, client.token)
                print("created an API token (shown once; keep it): " + client.token)
                print(f"  saved in {args.token_file}; later runs reuse it")
        except ApiError as exc:
            print(
                f"error: cannot log in as {args.username!r}: {exc.message} ({exc.code})",
                file=sys.stderr,
            )
            return 2
        except OSError as exc:
            print(f"error: cannot reach {args.base_url}: {exc}", file=sys.stderr)
            return 2

    if args.solution_file:
        with open(args.solution_file, encoding="utf-8") as handle:
            text = handle.read()
    else:
        text = args.solution
    try:
        problem = find_demo_problem(client, args.problem)
        verifier = open_verifier(problem)
        print(
            f"problem {problem['id']} {problem['title']!r} ({verifier['language']}, "
            f"{problem['currency']})"
        )
        print(f"  solution format: {verifier['active_version']['solution_format']}")
        started = time.monotonic()
        # Held by the server until the verdict: usually the only request.
        solution = submit(client, verifier["id"], text, wait_s=args.timeout_s)
        print(f"submitted solution {solution['id']}: {solution['url']}")
        if solution["status"] in ("accepted", "rejected"):
            verdict = solution
        else:
            verdict = wait_for_verdict(client, solution, args.timeout_s, started=started)
        seed = verdict["verdict"]["seed"]
        print(
            f"verdict: {verdict['verdict']['verdict']} {verdict['verdict']['reason'] or ''}"
            + (f" (seed {seed})" if seed is not None else "")
        )
        if verdict["status"] != "accepted":
            print(f"  detail: {verdict['verdict']['detail']}")
            return 1
        order = list_ask(client, problem, solution["id"], args.ask_price_minor)
        currency = order["currency"]
        # Amounts are integer minor units in the API; shown here both ways.
        sold = ", ".join(
            f"{f['price_minor']} (fee {f['fee_minor']}) = {money(f['price_minor'], currency)} "
            f"(fee {money(f['fee_minor'], currency)})"
            for f in order["fills"]
        )
        print(
            f"ask {order['id']} at {money(order['price_minor'], currency)}: {order['status']}"
            + (f"; sold at {sold}" if sold else "")
        )
        balances = client.get("/api/v1/account/balances/")
        for balance in balances:
            if balance["currency"] == problem["currency"]:
                print(f"balance: {money(balance['available_minor'], currency)} available")
    except ApiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # connection refused, timeout
        print(f"error: cannot reach {args.base_url}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
