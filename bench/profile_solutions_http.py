"""Where a verdict's web time goes: cProfile of the WSGI application for the client's two requests.

What a client of bench/pipeline.py sends per verdict, called in this process with production
settings (DEBUG off, tests/production/stack.py's environment) on a scratch database (migrated,
demo loaded): ``POST /api/v1/solutions/`` with an Idempotency-Key (the solution's insert, the
stored response, the judge task's publish to Redis after commit), then ``GET
<solution>?wait=30`` once the verdict is recorded (not profiled: the judge's part). This
process is not threaded, so the read is answered at once, as a held read whose verdict is
there. Prints JSON: wall and CPU time and Django's statements per pair, the time of each phase
(bench/profile_orders_http.py's phases and the solution's own), own time by package;
``--top`` adds cProfile's heaviest functions. Asserts nothing.

    .venv/bin/python bench/profile_solutions_http.py [--verdicts 300] [--top 40]
        (with DATABASE_URL and REDIS_URL, e.g. under scripts/stack.py run var/test --)
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

from bench.profile_orders_http import PHASES  # noqa: E402 - after the path is set
from bench.profiling import (  # noqa: E402
    call,
    phase_times,
    production_django,
    purge_queues,
    self_time_by_package,
    solution_text,
)

PROBLEM_SLUG = "demo-factor-391"
SOLUTION_PHASES: list[tuple[str, str, str]] = [
    ("view: verifier access check", "verifiers/access.py", "access_verifier"),
    ("view: submit_solution", "market/services/solutions.py", "submit_solution"),
    ("  of which: the active version", "verifiers/selectors.py", "get_active_version"),
    ("  of which: the insert", "market/services/solutions.py", "_insert_new"),
    ("after commit: the task's publish (kombu)", "celery/app/task.py", "apply_async"),
    ("view: solution access check", "market/access.py", "access_solution"),
    ("view: SolutionSerializer", "rest_framework/serializers.py", "data"),
    ("db: health check (SELECT 1)", "django/db/backends/postgresql/base.py", "is_usable"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verdicts", type=int, default=300, help="submission+read pairs")
    parser.add_argument("--top", type=int, default=0, help="also list the N heaviest functions")
    args = parser.parse_args()
    if "DATABASE_URL" not in os.environ or "REDIS_URL" not in os.environ:
        parser.error("set DATABASE_URL and REDIS_URL (scripts/stack.py run var/test -- ...)")

    extra_env = {"API_THROTTLE_WRITE": "1000000/min", "API_THROTTLE_READ": "1000000/min"}
    with production_django("profile_solutions", extra_env=extra_env):
        from django.db import connection

        from config.wsgi import application
        from judge.verdict import Outcome, Verdict
        from market.api.tokens import create_api_token
        from market.models import Problem
        from market.services.signup import sign_up
        from market.services.solutions import record_verdict

        user = sign_up(username=f"profile{uuid.uuid4().hex[:8]}", password=uuid.uuid4().hex)
        _, key = create_api_token(user=user, name="profile")
        verifier_id = Problem.objects.get(slug=PROBLEM_SLUG).verifiers.get().pk
        auth = {"Authorization": f"Token {key}"}
        counter = iter(range(10**6))
        accepted = Verdict(Outcome.ACCEPTED, None, "ok", seed=1)
        profiler = cProfile.Profile()
        outside = {"cpu_s": 0.0, "recording": False}

        def pair(*, profiled: bool = False) -> None:
            body = {"verifier": verifier_id, "text": solution_text(next(counter))}
            headers = {**auth, "Idempotency-Key": uuid.uuid4().hex}
            code, content = call(application, "POST", "/api/v1/solutions/", body, headers)
            assert code == 202, (code, content)
            solution_id = json.loads(content)["id"]
            if profiled:
                profiler.disable()
            cpu_before, outside["recording"] = time.process_time(), True
            record_verdict(solution_id=solution_id, verdict=accepted)  # the judge's part
            outside["cpu_s"] += time.process_time() - cpu_before  # type: ignore[operator]
            outside["recording"] = False
            if profiled:
                profiler.enable()
            path = f"/api/v1/solutions/{solution_id}/"
            code, content = call(application, "GET", path, None, {**auth})
            assert code == 200 and json.loads(content)["status"] == "accepted", (code, content)

        for _ in range(20):  # warm: imports, connections, prepared caches
            pair()
        statements: list[str] = []

        def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            if not outside["recording"]:
                statements.append(sql)
            return execute(sql, params, many, context)

        outside["cpu_s"] = 0.0
        started = time.perf_counter()
        cpu_started = time.process_time()
        with connection.execute_wrapper(count):
            for _ in range(args.verdicts):
                pair()
        unprofiled_cpu_s = time.process_time() - cpu_started - float(outside["cpu_s"])
        unprofiled_s = time.perf_counter() - started
        started = time.perf_counter()
        profiler.enable()
        for _ in range(args.verdicts):
            pair(profiled=True)
        profiler.disable()
        profiled_s = time.perf_counter() - started
        connection.close()
        purge_queues()  # the submissions' task messages: no worker takes them
    stats = pstats.Stats(profiler)
    phases = phase_times(stats, PHASES)
    for label, fragment, name in SOLUTION_PHASES:
        for (filename, _line, function), row in stats.stats.items():  # type: ignore[attr-defined]
            if function == name and filename.endswith(fragment):
                phases[label] = phases.get(label, 0.0) + row[3]
    by_package = sorted(self_time_by_package(stats).items(), key=lambda item: -item[1])
    report: dict[str, Any] = {
        "verdicts": args.verdicts,
        "machine": {"cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)},
        # Wall time includes the judge's record_verdict between the two requests; the CPU,
        # the statements and the profiled phases leave it out.
        "pair_ms_unprofiled_with_record": round(unprofiled_s * 1000 / args.verdicts, 3),
        "pair_cpu_ms_unprofiled": round(unprofiled_cpu_s * 1000 / args.verdicts, 3),
        # Django's statements, transaction control included; no health check's SELECT 1.
        "statements_per_pair": round(len(statements) / args.verdicts, 2),
        "pair_ms_profiled": round(profiled_s * 1000 / args.verdicts, 3),
        "profiled_ms_per_pair_by_phase": {
            label: round(seconds * 1000 / args.verdicts, 3)
            for label, seconds in sorted(phases.items(), key=lambda item: -item[1])
        },
        "profiled_self_ms_per_pair_by_package": {
            group: round(seconds * 1000 / args.verdicts, 3) for group, seconds in by_package[:25]
        },
    }
    if args.top:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.top)
        report["top"] = out.getvalue().splitlines()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
