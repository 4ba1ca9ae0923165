"""Where one verdict's time goes in the judge worker's task: cProfile of its body, in process.

The body of ``market.judge_python`` (``judge_claimed_solution``: claim, heartbeat, the
sandboxed verdict, record) runs in this process with production settings (DEBUG off,
tests/production/stack.py's environment) on a scratch database (migrated, demo loaded) and a
warm judge pool, for ``--verdicts`` solutions of "Factor 391". Two ways, back to back:
``new connection`` closes the database connection before each verdict, as Celery's Django
fix-up did around every task, and ``kept connection`` checks it as config/celery.py now does
(``close_old_connections``). Prints JSON: wall and CPU ms per verdict, Django's statements per
verdict, and the profiled time of each phase. Celery's own part (the message, the late ack,
the prefork pipe) is not in it: bench/pipeline.py measures the whole worker. Asserts nothing.

    .venv/bin/python bench/profile_judge_task.py [--verdicts 100] [--top 30]
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

from bench.profiling import phase_times, production_django, purge_queues, solution_text  # noqa: E402

PROBLEM_SLUG = "demo-factor-391"

PHASES: list[tuple[str, str, str]] = [
    ("claim (UPDATE, then read the solution)", "market/services/solutions.py", "claim_solution"),
    ("heartbeat thread start/stop", "verifiers/services/claims.py", "heartbeat"),
    ("the sandboxed verdict (judge_text)", "verifiers/services/judging.py", "judge_text"),
    ("record (lock, verdict, status, event)", "market/services/solutions.py", "record_verdict"),
    ("  of which: the activity event", "activity/services/events.py", "record_verdict_event"),
    ("db: connect (new backend, auth)", "django/db/backends/base/base.py", "connect"),
    ("db: health check (SELECT 1)", "django/db/backends/postgresql/base.py", "is_usable"),
    ("db: psycopg round trips", "psycopg/cursor.py", "execute"),
    ("close_old_connections", "django/db/__init__.py", "close_old_connections"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verdicts", type=int, default=100, help="verdicts per way")
    parser.add_argument("--top", type=int, default=0, help="also list the N heaviest functions")
    args = parser.parse_args()
    if "DATABASE_URL" not in os.environ or "REDIS_URL" not in os.environ:
        parser.error("set DATABASE_URL and REDIS_URL (scripts/stack.py run var/test -- ...)")

    report: dict[str, Any] = {
        "verdicts": args.verdicts,
        "machine": {"cpus": os.cpu_count(), "load_avg_1m_at_start": round(os.getloadavg()[0], 2)},
    }
    with production_django("profile_judge"):
        from django.db import close_old_connections, connection

        from judge.python.runner import default_judge
        from market.models import Problem
        from market.services.signup import sign_up
        from market.services.solutions import judge_claimed_solution, submit_solution

        default_judge().warm_up()
        solver = sign_up(username=f"profile{uuid.uuid4().hex[:8]}", password=uuid.uuid4().hex)
        verifier = Problem.objects.get(slug=PROBLEM_SLUG).verifiers.get()
        counter = iter(range(10**6))

        def solution_ids(count: int) -> list[int]:
            return [
                submit_solution(
                    solver=solver, verifier=verifier, text=solution_text(next(counter))
                ).pk
                for _ in range(count)
            ]

        def verdicts(ids: list[int], *, new_connection: bool) -> None:
            for solution_id in ids:
                # What Celery's fix-up did before and after each task, or what it does now.
                if new_connection:
                    connection.close()
                else:
                    close_old_connections()
                judge_claimed_solution(solution_id=solution_id, task_id=uuid.uuid4().hex)

        verdicts(solution_ids(10), new_connection=False)  # warm: imports, plans, zygotes
        for name, new_connection in (("new connection", True), ("kept connection", False)):
            ids = solution_ids(args.verdicts)
            statements: list[str] = []

            def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
                statements.append(sql)
                return execute(sql, params, many, context)

            started, cpu_started = time.perf_counter(), time.process_time()
            with connection.execute_wrapper(count):
                verdicts(ids, new_connection=new_connection)
            wall_s, cpu_s = time.perf_counter() - started, time.process_time() - cpu_started
            profiler = cProfile.Profile()
            ids = solution_ids(args.verdicts)
            profiler.enable()
            verdicts(ids, new_connection=new_connection)
            profiler.disable()
            stats = pstats.Stats(profiler)
            report[name] = {
                "ms_per_verdict": round(wall_s * 1000 / args.verdicts, 2),
                # This process's CPU (the sandbox's processes are not in it).
                "cpu_ms_per_verdict": round(cpu_s * 1000 / args.verdicts, 2),
                # Django's statements; a health check's SELECT 1 and a connection's set-up
                # are not among them.
                "statements_per_verdict": round(len(statements) / args.verdicts, 2),
                "profiled_ms_per_verdict_by_phase": {
                    label: round(seconds * 1000 / args.verdicts, 3)
                    for label, seconds in phase_times(stats, PHASES).items()
                },
            }
            if args.top:
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.top)
                report[name]["top"] = out.getvalue().splitlines()
        connection.close()
        default_judge().close()
        purge_queues()  # the submissions' messages: no worker took them
    report["machine"]["load_avg_1m_at_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
