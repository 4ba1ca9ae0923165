"""Order placement through the HTTP API beside the engine, in one run; prints JSON, asserts nothing.

The production-shaped stack (tests/production/stack.py: gunicorn with DEBUG off, on this
machine's PostgreSQL and Redis) is started on a scratch database. ``--clients`` client
processes, one user each, then run the same loop twice, on the same demo problem:

- ``engine``: the market's services called in the process (``place_bid`` of a resting bid,
  then ``cancel_order``): the engine with its Python service layer, no HTTP;
- ``http``: the same two calls through ``POST /api/v1/orders/`` (with an Idempotency-Key, as
  every client sends) and ``POST /api/v1/orders/{id}/cancel/``.

Both count placements per second over all clients (a cancel is not counted, but it is paid
for in the time) and the per-request p50/p95, and say where the machine's CPU went per
placement (with its cancel), role by role (bench/cpu_roles.py): the web processes, PostgreSQL,
Redis, the stack's workers and beat, and the clients' own loops (``clients``: the engine
loop's clients run the service layer, the HTTP loop's build and parse requests).

The API's write throttle is raised for the run (``API_THROTTLE_WRITE``): at the default
120/min a client is capped at 1 placement a second with its cancel, which would measure the
throttle.

    .venv/bin/python bench/orders_http.py [--clients 8] [--ops 150] [--web-workers 3]
        [--web-threads 8]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples"))

import cpu_roles  # noqa: E402

PASSWORD = "bench-orders-http-password-1"  # noqa: S105 - throw-away users, scratch database
PROBLEM_SLUG = "demo-factor-391"
PRICE_MINOR = 7  # far below the practice bot's ask-free book: every bid rests


def _summary(samples_s: list[float], elapsed_s: float, placements: int) -> dict[str, object]:
    ordered = sorted(samples_s)
    return {
        "placements": placements,
        "elapsed_s": round(elapsed_s, 3),
        "placements_per_s": round(placements / elapsed_s, 1) if elapsed_s else 0.0,
        "place_p50_ms": round(statistics.median(ordered) * 1000, 2) if ordered else None,
        "place_p95_ms": round(
            ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] * 1000, 2
        )
        if ordered
        else None,
    }


def _engine_client(spec: dict[str, Any]) -> dict[str, Any]:
    """One client process of the ``engine`` loop (Django set up on the stack's database)."""
    os.environ["DATABASE_URL"] = spec["database_url"]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from market.models import Problem
    from market.money import Money
    from market.services.orders import cancel_order, place_bid

    user = get_user_model().objects.get(username=spec["username"])
    problem = Problem.objects.get(slug=PROBLEM_SLUG)
    price = Money(PRICE_MINOR, "DEMO")
    samples: list[float] = []
    _wait_for_start(spec["start_at"])
    started, cpu_started = time.perf_counter(), time.process_time()
    for _ in range(spec["ops"]):
        begun = time.perf_counter()
        order = place_bid(buyer=user, problem=problem, price=price, quantity=1)
        samples.append(time.perf_counter() - begun)
        cancel_order(user=user, order_id=order.pk)
    return _client_result(samples, started, cpu_started)


class _KeptConnection:
    """The example client's requests (token, Idempotency-Key, the proxy's header) on one kept
    HTTP/1.1 connection, as a reverse proxy in front of gunicorn keeps its upstream ones
    (``--keep-alive``); the example client opens a connection per request."""

    def __init__(self, base_url: str, token: str) -> None:
        import http.client
        import urllib.parse

        address = urllib.parse.urlsplit(base_url)
        self.connection = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
        self.headers = {
            "Accept": "application/json",
            "Content-Type": "application/json",
            "Authorization": f"Token {token}",
            "X-Forwarded-Proto": "https",
        }

    def post(self, path: str, body: dict[str, Any]) -> Any:
        import uuid

        headers = {**self.headers, "Idempotency-Key": str(uuid.uuid4())}
        self.connection.request("POST", path, json.dumps(body).encode(), headers)
        response = self.connection.getresponse()
        raw = response.read()
        if response.status >= 300:
            raise SystemExit(f"{path}: {response.status} {raw[:200]!r}")
        return json.loads(raw)


def _http_client(spec: dict[str, Any]) -> dict[str, Any]:
    """One client process of the ``http`` loop."""
    from pipeline import ProxiedClient

    client: Any = (
        _KeptConnection(spec["base_url"], spec["token"])
        if spec["keep_alive"]
        else ProxiedClient(spec["base_url"], spec["token"])
    )
    samples: list[float] = []
    _wait_for_start(spec["start_at"])
    started, cpu_started = time.perf_counter(), time.process_time()
    for _ in range(spec["ops"]):
        begun = time.perf_counter()
        order = client.post(
            "/api/v1/orders/",
            {
                "problem": spec["problem_id"],
                "side": "bid",
                "price_minor": PRICE_MINOR,
                "currency": "DEMO",
                "quantity": 1,
            },
        )
        samples.append(time.perf_counter() - begun)
        client.post(f"/api/v1/orders/{order['id']}/cancel/", {})
    return _client_result(samples, started, cpu_started)


def _client_result(samples: list[float], started: float, cpu_started: float) -> dict[str, Any]:
    return {
        "samples": samples,
        "elapsed_s": time.perf_counter() - started,
        "cpu_s": time.process_time() - cpu_started,
    }


def _wait_for_start(start_at: float) -> None:
    # The processes start together at a wall-clock instant, after their imports.
    delay = start_at - time.time()
    if delay > 0:
        time.sleep(delay)


def _run_clients(
    kind: str, specs: list[dict[str, Any]], roots: dict[str, int]
) -> dict[str, object]:
    start_at = time.time() + 5.0 + 0.5 * len(specs)
    processes = []
    for spec in specs:
        payload = json.dumps({**spec, "start_at": start_at})
        processes.append(
            subprocess.Popen(  # noqa: S603 - this script
                [sys.executable, __file__, "--client", kind],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=ROOT,
                env=specs[0]["env"] if kind == "engine" else None,
            )
        )
        processes[-1].stdin.write(payload.encode())
        processes[-1].stdin.close()
    _wait_for_start(start_at)
    cpu_before = cpu_roles.snapshot(roots)
    load_before = os.getloadavg()[0]
    results = []
    for process in processes:
        out = process.stdout.read()
        if process.wait() != 0:
            raise SystemExit(f"a {kind} client failed")
        results.append(json.loads(out))
    cpu_after = cpu_roles.snapshot(roots)
    samples = [sample for result in results for sample in result["samples"]]
    elapsed = max(result["elapsed_s"] for result in results)
    cpu_ms = cpu_roles.ms_per_unit(
        cpu_before, cpu_after, len(samples), clients=sum(r["cpu_s"] for r in results)
    )
    return {
        **_summary(samples, elapsed, len(samples)),
        "load_avg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        # Where the machine's CPU went per placement with its cancel: the bound on this
        # machine's rate (cpu_bound_placements_per_s) when every core is busy.
        "cpu_ms_per_placement": cpu_ms,
        "cpu_bound_placements_per_s": cpu_roles.cpu_bound_rate(cpu_ms["total"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--ops", type=int, default=150, help="placements per client and loop")
    parser.add_argument("--folder", type=pathlib.Path, default=ROOT / "var/bench/orders_http")
    parser.add_argument("--web-workers", type=int, default=3, help="gunicorn --workers")
    parser.add_argument("--web-threads", type=int, default=8, help="gunicorn --threads")
    parser.add_argument(
        "--keep-alive",
        action="store_true",
        help="HTTP clients keep one connection (as a reverse proxy does), not one per request",
    )
    parser.add_argument("--client", choices=("engine", "http"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        spec = json.loads(sys.stdin.read())
        runner = _engine_client if args.client == "engine" else _http_client
        print(json.dumps(runner(spec)))
        return
    if "DATABASE_URL" not in os.environ or "REDIS_URL" not in os.environ:
        parser.error("set DATABASE_URL and REDIS_URL (make bench does)")

    from pipeline import ProxiedClient, create_users
    from solver_client import create_token, find_demo_problem

    from tests.production.stack import production_stack

    os.environ["API_THROTTLE_WRITE"] = "1000000/min"
    shutil.rmtree(args.folder, ignore_errors=True)
    report: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "load_avg_1m_at_start": round(os.getloadavg()[0], 2)},
        "web": {"workers": args.web_workers, "threads": args.web_threads},
        "http_connections": "kept" if args.keep_alive else "one per request",
    }
    with production_stack(
        args.folder, web_workers=args.web_workers, web_threads=args.web_threads
    ) as stack:
        users = create_users(stack.env, args.clients, prefix="orders", password=PASSWORD)
        tokens = [create_token(ProxiedClient(stack.base_url), name, PASSWORD) for name in users]
        problem = find_demo_problem(ProxiedClient(stack.base_url, tokens[0]), PROBLEM_SLUG)
        common = {"ops": args.ops, "env": stack.env, "database_url": stack.env["DATABASE_URL"]}
        engine_specs = [{**common, "username": name} for name in users]
        http_specs = [
            {
                "ops": args.ops,
                "base_url": stack.base_url,
                "token": token,
                "problem_id": problem["id"],
                "keep_alive": args.keep_alive,
            }
            for token in tokens
        ]
        roots = cpu_roles.stack_roles(stack.processes)
        report["engine"] = _run_clients("engine", engine_specs, roots)
        report["http"] = _run_clients("http", http_specs, roots)
    report["http_share_of_engine"] = round(
        report["http"]["placements_per_s"] / report["engine"]["placements_per_s"], 3
    )
    report["machine"]["load_avg_1m_at_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
