"""Where one order placement's time goes in the web process: cProfile of the WSGI application.

The web role's own code path, without gunicorn or a socket: ``config.wsgi.application`` is
called in this process with production settings (DEBUG off, tests/production/stack.py's
environment) on a scratch database (migrated, demo loaded), for ``--ops`` placements
(``POST /api/v1/orders/`` with an Idempotency-Key) each followed by its cancel, as
bench/orders_http.py's clients send them. Prints JSON: wall and CPU time and Django's
statements per placement+cancel pair, the CPU of the PostgreSQL backend that served them, the
time inside each middleware (its own hooks, not what it wraps), DRF's steps, the idempotency
layer, the engine calls and the response; ``--top`` adds cProfile's heaviest functions by
cumulative time. Asserts nothing.

    .venv/bin/python bench/profile_orders_http.py [--ops 300] [--top 40]   (DATABASE_URL, REDIS_URL)
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pathlib
import pstats
import sys
import time
import uuid
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cpu_roles import tree_cpu_s  # noqa: E402 - after the path is set
from bench.profiling import (  # noqa: E402 - after the path is set
    call,
    phase_times,
    production_django,
    self_time_by_package,
)

PROBLEM_SLUG = "demo-factor-391"
PRICE_MINOR = 7  # every bid rests (as in bench/orders_http.py)

# (label, file fragment, function name): cumulative time of these functions is what the
# label costs. Middleware hooks are listed one by one so that a wrapper's inner work is not
# counted twice.
PHASES: list[tuple[str, str, str]] = [
    ("mw: SecurityMiddleware", "middleware/security.py", "process_request"),
    ("mw: SecurityMiddleware", "middleware/security.py", "process_response"),
    ("mw: WhiteNoise (static lookup)", "whitenoise/middleware.py", "__call__:self"),
    ("mw: CSP", "csp/middleware.py", "process_request"),
    ("mw: CSP", "csp/middleware.py", "process_response"),
    ("mw: sessions", "sessions/middleware.py", "process_request"),
    ("mw: sessions", "sessions/middleware.py", "process_response"),
    ("mw: CommonMiddleware", "middleware/common.py", "process_request"),
    ("mw: CommonMiddleware", "middleware/common.py", "process_response"),
    ("mw: CSRF", "middleware/csrf.py", "process_request"),
    ("mw: CSRF", "middleware/csrf.py", "process_view"),
    ("mw: CSRF", "middleware/csrf.py", "process_response"),
    ("mw: auth (lazy user)", "auth/middleware.py", "process_request"),
    ("mw: messages", "messages/middleware.py", "process_request"),
    ("mw: messages", "messages/middleware.py", "process_response"),
    ("mw: XFrameOptions", "middleware/clickjacking.py", "process_response"),
    ("mw: axes", "axes/middleware.py", "__call__:self"),
    ("url resolve", "django/urls/resolvers.py", "resolve"),
    ("drf: Request (parsers, negotiation setup)", "rest_framework/views.py", "initialize_request"),
    ("drf: content negotiation", "rest_framework/views.py", "perform_content_negotiation"),
    ("drf: authentication (token lookup)", "rest_framework/views.py", "perform_authentication"),
    ("drf: permissions", "rest_framework/views.py", "check_permissions"),
    ("drf: throttles (Redis)", "rest_framework/views.py", "check_throttles"),
    ("drf: parse body", "rest_framework/request.py", "_parse"),
    ("drf: finalize/render response", "rest_framework/views.py", "finalize_response"),
    ("drf: render JSON", "rest_framework/renderers.py", "render"),
    ("idempotency: fingerprint", "market/api/idempotency.py", "request_fingerprint"),
    ("idempotency: claim (INSERT)", "market/api/idempotency.py", "_claim"),
    ("idempotency: store response (UPDATE)", "market/api/idempotency.py", "_complete"),
    ("view: body serializer validation", "market/api/views.py", "parse_body"),
    ("view: access check (problem/order)", "market/access.py", "access_problem"),
    ("view: access check (problem/order)", "market/access.py", "access_own_order"),
    ("engine: place_bid", "market/services/orders.py", "place_bid"),
    ("engine: cancel_order", "market/services/orders.py", "cancel_order"),
    ("view: order re-read", "market/selectors.py", "get_user_order"),
    ("view: OrderSerializer", "rest_framework/serializers.py", "data"),
    ("view: reverse() for Location", "django/urls/base.py", "reverse"),
    ("db: execute (all statements)", "django/db/backends/utils.py", "execute"),
    ("db: psycopg round trips", "psycopg/cursor.py", "execute"),
    ("redis: script call", "redis/commands/core.py", "__call__"),
    (
        "request_finished signal (close_old_connections)",
        "django/db/__init__.py",
        "close_old_connections",
    ),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=300, help="placements (each with its cancel)")
    parser.add_argument("--top", type=int, default=0, help="also list the N heaviest functions")
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args()
    if "DATABASE_URL" not in os.environ or "REDIS_URL" not in os.environ:
        parser.error("set DATABASE_URL and REDIS_URL (scripts/stack.py run var/test -- ...)")

    extra_env = {
        "DJANGO_CSRF_TRUSTED_ORIGINS": "https://127.0.0.1",
        "API_THROTTLE_WRITE": "1000000/min",  # as bench/orders_http.py
    }
    with production_django("profile", extra_env=extra_env, keep=args.keep_database):
        from config.wsgi import application
        from market.api.tokens import create_api_token
        from market.models import Problem
        from market.services.signup import sign_up

        user = sign_up(username=f"profile{uuid.uuid4().hex[:8]}", password=uuid.uuid4().hex)
        _, key = create_api_token(user=user, name="profile")
        problem_id = Problem.objects.get(slug=PROBLEM_SLUG).pk
        auth = {"Authorization": f"Token {key}"}
        order = {
            "problem": problem_id,
            "side": "bid",
            "price_minor": PRICE_MINOR,
            "currency": "DEMO",
            "quantity": 1,
        }

        def pair() -> None:
            headers = {**auth, "Idempotency-Key": uuid.uuid4().hex}
            code, body = call(application, "POST", "/api/v1/orders/", order, headers)
            assert code == 201, (code, body)
            order_id = json.loads(body)["id"]
            headers = {**auth, "Idempotency-Key": uuid.uuid4().hex}
            code, body = call(
                application, "POST", f"/api/v1/orders/{order_id}/cancel/", {}, headers
            )
            assert code == 200, (code, body)

        for _ in range(20):  # warm: imports, connections, prepared caches
            pair()
        from django.db import connection

        statements: list[str] = []

        def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            statements.append(sql)
            return execute(sql, params, many, context)

        backend_pid = connection.connection.info.backend_pid
        backend_cpu_started = tree_cpu_s(backend_pid)
        started = time.perf_counter()
        cpu_started = time.process_time()
        with connection.execute_wrapper(count):
            for _ in range(args.ops):
                pair()
        unprofiled_cpu_s = time.process_time() - cpu_started
        unprofiled_s = time.perf_counter() - started
        # The PostgreSQL backend that served them (None if the connection was replaced).
        backend_cpu_s = (
            tree_cpu_s(backend_pid) - backend_cpu_started
            if connection.connection.info.backend_pid == backend_pid
            else None
        )
        profiler = cProfile.Profile()
        started = time.perf_counter()
        profiler.enable()
        for _ in range(args.ops):
            pair()
        profiler.disable()
        profiled_s = time.perf_counter() - started
    stats = pstats.Stats(profiler)
    per_pair_ms = {
        label: round(seconds * 1000 / args.ops, 3)
        for label, seconds in sorted(phase_times(stats, PHASES).items(), key=lambda item: -item[1])
    }
    report: dict[str, Any] = {
        "ops": args.ops,
        "machine": {"cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)},
        "pair_ms_unprofiled": round(unprofiled_s * 1000 / args.ops, 3),
        # CPU of this (the web) process: less at the mercy of the machine's load than wall time.
        "pair_cpu_ms_unprofiled": round(unprofiled_cpu_s * 1000 / args.ops, 3),
        "postgresql_backend_cpu_ms_per_pair": round(backend_cpu_s * 1000 / args.ops, 3)
        if backend_cpu_s is not None
        else None,
        # Django's statements (the connection health check's SELECT 1 is not one of them).
        "statements_per_pair": round(len(statements) / args.ops, 2),
        "pair_ms_profiled": round(profiled_s * 1000 / args.ops, 3),
        "profiled_ms_per_pair_by_phase": per_pair_ms,
    }
    by_package = sorted(self_time_by_package(stats).items(), key=lambda item: -item[1])
    report["profiled_self_ms_per_pair_by_package"] = {
        group: round(seconds * 1000 / args.ops, 3) for group, seconds in by_package[:25]
    }
    if args.top:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.top)
        report["top"] = out.getvalue().splitlines()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
