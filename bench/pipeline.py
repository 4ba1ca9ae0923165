"""Benchmark of the verdict pipeline as users feel it; prints one JSON object, asserts nothing.

The production-shaped stack (tests/production/stack.py: gunicorn with DEBUG off, a default
worker, a Python judge worker with ``--judge-processes`` pool children, beat, on this machine's
PostgreSQL and Redis) is started; ``--clients`` API clients (threads, one user and token each)
submit ``--solutions`` solutions of the demo problem "Factor 391" and get each verdict with
``--wait-by``: ``submit`` (default), one request ``POST /api/v1/solutions/?wait=30`` held by
the server until the verdict; ``get``, the submission and then ``GET <solution>?wait=30``
(as clients did before the waiting submission); ``poll`` (or ``--poll``), the submission and
polls of the status resource every 0.25 s (before the wait existed). Latency is taken from
the server's own timestamps (``judged_at - created_at``), so the clients' waiting does not
count; the requests the clients sent are counted. Then ``--single``
submissions one at a time (the low-load latency of one user). The web role runs as the
images run it (``--web-workers 3 --web-threads 8``, gunicorn's gthread worker).

In the same run, as the baseline, the judge core alone: the same verifier and solutions through
``PythonJudge`` with as many warm zygotes as the worker has pool children.

    .venv/bin/python bench/pipeline.py [--solutions 200] [--clients 8] [--judge-processes 2]
        [--web-workers 3] [--web-threads 8] [--wait-by submit|get|poll]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime as dt
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples"))

import cpu_roles  # noqa: E402
from solver_client import Client, create_token, find_demo_problem, open_verifier  # noqa: E402

from judge.python import PythonJob, PythonJudge  # noqa: E402
from tests.production.stack import production_stack  # noqa: E402

VERIFIER = (ROOT / "market/demo/python/factor-391/verifier.py").read_text()
PASSWORD = "bench-pipeline-password-1"  # noqa: S105 - a throw-away user on a private database
FINAL = ("accepted", "rejected")
# A client polls the status resource this often (the example client starts at 0.5 s); the
# latency figures come from the server's timestamps, so polling only adds load, as it does live.
POLL_S = 0.25
WAIT_S = 30.0  # the longest wait the API allows
WAIT_BY = {
    "submit": "POST ?wait=30 (one request per verdict)",
    "get": "POST, then GET ?wait=30",
    "poll": "POST, then polling every 0.25 s",
}


class ProxiedClient(Client):
    """The API client behind the TLS proxy that the production settings trust; it counts the
    requests it sends (retries of a 429 included)."""

    requests_sent = 0
    _count_lock = threading.Lock()

    def request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        headers: dict[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[int, dict[str, str], Any]:
        proxied = {"X-Forwarded-Proto": "https", **(headers or {})}
        # The API's own links say https:// (the proxy's scheme); the proxy is not here.
        if path.startswith("https://"):
            path = "http://" + path.removeprefix("https://")
        with ProxiedClient._count_lock:
            ProxiedClient.requests_sent += 1
        return super().request(method, path, body, headers=proxied, idempotency_key=idempotency_key)


def _percentiles(samples_s: list[float]) -> dict[str, float | int]:
    if not samples_s:
        return {"n": 0}
    ordered = sorted(samples_s)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered) * 1000, 1),
        "p95_ms": round(p95 * 1000, 1),
        "max_ms": round(ordered[-1] * 1000, 1),
    }


def _solution_text(i: int) -> str:
    """Solution ``i``: distinct texts (the market keeps one solution per solver and text)."""
    # Mostly the right answer, some wrong ones: both verdicts travel the same path. The
    # verifier allows surrounding and separating whitespace, which makes each text unique.
    a, b = ("17", "23") if i % 4 else ("1", "391")
    return " " * (i % 64) + a + " " * (1 + i // 64) + b


def _core(jobs: int, processes: int) -> dict[str, object]:
    """The judge core's own throughput on the same verifier and solutions (warm zygotes)."""
    judge = PythonJudge(size=processes)
    try:
        judge.warm_up()
        for i in range(processes * 2):
            judge.judge(PythonJob(VERIFIER, _solution_text(i), seed=i))
        started = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(max_workers=processes) as executor:
            verdicts = list(
                executor.map(
                    judge.judge,
                    (PythonJob(VERIFIER, _solution_text(i), seed=i) for i in range(jobs)),
                )
            )
        elapsed = time.perf_counter() - started
    finally:
        judge.close()
    return {
        "zygotes": processes,
        "jobs": jobs,
        "accepted": sum(1 for verdict in verdicts if verdict.is_accepted),
        "elapsed_s": round(elapsed, 3),
        "verdicts_per_s": round(jobs / elapsed, 1),
    }


def create_users(env: dict[str, str], count: int, *, prefix: str, password: str) -> list[str]:
    """``count`` users signed up on the stack's database (``<prefix><i>``); their names."""
    names = [f"{prefix}{i}" for i in range(count)]
    code = (
        "from market.services.signup import sign_up\n"
        f"for name in {names!r}:\n"
        f"    sign_up(username=name, password={password!r})\n"
    )
    subprocess.run(  # noqa: S603 - our own command
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return names


def _parse_time(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


def _submit_and_wait(
    client: Client, verifier_id: int, text: str, timeout_s: float, wait_by: str
) -> dict[str, Any]:
    """Submit ``text``; the full record once judged, got the ``wait_by`` way."""
    body = {"verifier": verifier_id, "text": text}
    if wait_by != "submit":
        return _wait(client, client.post("/api/v1/solutions/", body), timeout_s, wait_by=wait_by)
    record = client.post(f"/api/v1/solutions/?wait={WAIT_S:.0f}", body)
    if record["status"] in FINAL:
        return dict(record)
    return _wait(client, record, timeout_s)  # not held to its verdict (no free slot, time up)


def _wait(
    client: Client, solution: dict[str, Any], timeout_s: float, *, wait_by: str = "get"
) -> dict[str, Any]:
    """The full record once judged: held by the server (``?wait=``), or by polling."""
    if wait_by == "poll":
        return _poll(client, solution, timeout_s)
    deadline = time.monotonic() + timeout_s
    while (remaining := deadline - time.monotonic()) > 0:
        asked_s = min(WAIT_S, max(remaining, 0.001))
        started = time.monotonic()
        record = client.get(f"{solution['url']}?wait={asked_s:.3f}")
        if record["status"] in FINAL:
            return dict(record)
        if time.monotonic() - started < asked_s / 2:
            time.sleep(POLL_S)  # not held (no free slot on the server): poll meanwhile
    raise TimeoutError(f"no verdict for solution {solution['id']} within {timeout_s:.0f} s")


def _poll(client: Client, solution: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    """Poll the status resource (304 while unchanged) until the verdict; the full record."""
    url = solution["url"].rstrip("/") + "/status/"
    etag: str | None = None
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        headers = {"If-None-Match": etag} if etag else {}
        status, response_headers, body = client.request("GET", url, headers=headers)
        if status == 200:
            etag = response_headers.get("ETag")
            if body["status"] in FINAL:
                return dict(client.get(solution["url"]))
        time.sleep(POLL_S)
    raise TimeoutError(f"no verdict for solution {solution['id']} within {timeout_s:.0f} s")


def _server_latency_s(record: dict[str, Any]) -> float:
    return (_parse_time(record["judged_at"]) - _parse_time(record["created_at"])).total_seconds()


def _burst(
    clients: list[ProxiedClient],
    verifier_id: int,
    solutions: int,
    timeout_s: float,
    roots: dict[str, int],
    wait_by: str,
) -> dict[str, object]:
    latencies: list[float] = []
    statuses: dict[str, int] = {}
    errors: list[str] = []
    lock = threading.Lock()
    created: list[dt.datetime] = []
    judged: list[dt.datetime] = []

    def run(index: int) -> None:
        client = clients[index % len(clients)]
        try:
            record = _submit_and_wait(
                client, verifier_id, _solution_text(index), timeout_s, wait_by
            )
        except Exception as exc:  # noqa: BLE001 - a bench counts failures, it does not stop
            with lock:
                errors.append(f"{type(exc).__name__}: {exc}"[:200])
            return
        with lock:
            latencies.append(_server_latency_s(record))
            statuses[record["status"]] = statuses.get(record["status"], 0) + 1
            created.append(_parse_time(record["created_at"]))
            judged.append(_parse_time(record["judged_at"]))

    cpu_before = cpu_roles.snapshot(roots)
    requests_before = ProxiedClient.requests_sent
    own_cpu_before = time.process_time()
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(clients)) as executor:
        list(executor.map(run, range(solutions)))
    wall_s = time.perf_counter() - started
    cpu_ms = cpu_roles.ms_per_unit(
        cpu_before,
        cpu_roles.snapshot(roots),
        len(latencies),
        api_clients=time.process_time() - own_cpu_before,
    )
    span_s = (max(judged) - min(created)).total_seconds() if judged else 0.0
    return {
        "solutions": solutions,
        "clients": len(clients),
        "statuses": statuses,
        "errors": len(errors),
        "error_samples": errors[:3],
        "client_wall_s": round(wall_s, 3),
        # First submission to last verdict, by the server's clock.
        "server_span_s": round(span_s, 3),
        "verdicts_per_s": round(len(latencies) / span_s, 2) if span_s else 0.0,
        "submit_to_verdict": _percentiles(latencies),
        "requests_per_verdict": round(
            (ProxiedClient.requests_sent - requests_before) / max(len(latencies), 1), 2
        ),
        # Where the machine's CPU went, per verdict: the bound on this machine's throughput.
        "cpu_ms_per_verdict": cpu_ms,
        "cpu_bound_verdicts_per_s": cpu_roles.cpu_bound_rate(cpu_ms["total"]),
    }


def _single(
    client: Client, verifier_id: int, count: int, timeout_s: float, wait_by: str
) -> dict[str, object]:
    latencies: list[float] = []
    for i in range(count):
        record = _submit_and_wait(
            client, verifier_id, _solution_text(100_000 + i), timeout_s, wait_by
        )
        latencies.append(_server_latency_s(record))
    return {"submit_to_verdict": _percentiles(latencies)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--solutions", type=int, default=200)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--judge-processes", type=int, default=2)
    parser.add_argument("--single", type=int, default=20)
    parser.add_argument("--timeout-s", type=float, default=600.0)
    parser.add_argument("--web-workers", type=int, default=3, help="gunicorn --workers")
    parser.add_argument("--web-threads", type=int, default=8, help="gunicorn --threads")
    parser.add_argument(
        "--wait-by",
        choices=WAIT_BY,
        default="submit",
        help="submit: POST ?wait=30 (one request); get: POST, then GET ?wait=30; poll: POST, "
        "then poll the status resource",
    )
    parser.add_argument("--poll", action="store_true", help="the same as --wait-by poll")
    parser.add_argument("--folder", type=pathlib.Path, default=ROOT / "var/bench/pipeline")
    args = parser.parse_args()
    wait_by = "poll" if args.poll else args.wait_by
    if "DATABASE_URL" not in os.environ or "REDIS_URL" not in os.environ:
        parser.error("set DATABASE_URL and REDIS_URL (make bench does)")

    core = _core(args.solutions, args.judge_processes)
    shutil.rmtree(args.folder, ignore_errors=True)
    report: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "load_avg_1m_at_start": round(os.getloadavg()[0], 2)},
        "judge_core_same_run": core,
        "web": {"workers": args.web_workers, "threads": args.web_threads},
        "clients_wait_by": WAIT_BY[wait_by],
    }
    started = time.monotonic()
    with production_stack(
        args.folder,
        judge_processes=args.judge_processes,
        web_workers=args.web_workers,
        web_threads=args.web_threads,
    ) as stack:
        report["stack_start_s"] = round(time.monotonic() - started, 1)
        users = create_users(stack.env, args.clients, prefix="bench", password=PASSWORD)
        clients = []
        for name in users:
            client = ProxiedClient(stack.base_url, timeout_s=WAIT_S + 30)
            client.token = create_token(client, name, PASSWORD)
            clients.append(client)
        problem = find_demo_problem(clients[0], "demo-factor-391")
        verifier_id = int(open_verifier(problem)["id"])
        # The first verdict of the fresh stack (the worker's warm-up, or its absence).
        first = _submit_and_wait(clients[0], verifier_id, "17 23\n", args.timeout_s, wait_by)
        report["first_verdict_s"] = round(_server_latency_s(first), 3)
        report["single_client_sequential"] = _single(
            clients[0], verifier_id, args.single, args.timeout_s, wait_by
        )
        roots = cpu_roles.stack_roles(stack.processes)
        report["burst"] = _burst(
            clients, verifier_id, args.solutions, args.timeout_s, roots, wait_by
        )
    burst_rate = report["burst"]["verdicts_per_s"]
    report["end_to_end_share_of_core"] = round(burst_rate / core["verdicts_per_s"], 3)
    report["machine"]["load_avg_1m_at_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
