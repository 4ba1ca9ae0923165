#!/usr/bin/env python3
"""Soak `make run`: start it (scripts/run.sh, its own PostgreSQL and Redis in a fresh folder),
then for --minutes use it as a few people would through the REST API (submit solutions to a
Python demo problem, wait for verdicts, bid, cancel, sell accepted solutions to the practice
bot) while SIGKILLing a worker process now and then (the worker's main process or one of its
pool children, alternately). At the end Ctrl-C (SIGINT) stops it and the figures are printed
as JSON: requests by status, latency percentiles, 5xx and refused connections, verdict
latencies, the kills and how long the worker took to judge again after each, the stop time.

    .venv/bin/python scripts/soak.py --minutes 15 [--kill-every 90] [--port 8123]

Exit status 1 when any request got a 5xx or the web server stopped answering, a verdict
never came, or the stack died.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = str(ROOT / ".venv" / "bin" / "python")
USERS = 4
MAKE_USERS = """
import json
from market.api.tokens import create_api_token
from market.services.signup import sign_up
out = []
for i in range({count}):
    user = sign_up(username="soak{stamp}x" + str(i), password="soak-password-" + str(i))
    out.append(create_api_token(user=user, name="soak")[1])
print(json.dumps(out))
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Api:
    def __init__(self, base: str) -> None:
        self.base = base
        self.statuses: Counter[str] = Counter()
        self.latencies_ms: list[float] = []
        self.failures: list[str] = []

    def call(self, method: str, path: str, token: str | None, body: object = None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)  # noqa: S310
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Token {token}")
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
                status, payload = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        except OSError as error:
            self.statuses["refused"] += 1
            self.failures.append(f"{time.strftime('%H:%M:%S')} {method} {path}: {error}")
            return None, None
        self.latencies_ms.append((time.monotonic() - started) * 1000)
        self.statuses[str(status)] += 1
        if status >= 500:
            self.failures.append(f"{time.strftime('%H:%M:%S')} {method} {path}: {status}")
        try:
            return status, json.loads(payload or b"null")
        except ValueError:
            return status, None


def children(pid: int) -> dict[int, str]:
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if int(stat[stat.rfind(")") + 2 :].split()[1]) == pid:
                found[int(entry)] = cmdline.decode(errors="replace")
    return found


def worker_pid(supervisor: int) -> int | None:
    return next((p for p, c in children(supervisor).items() if " worker " in c), None)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1) if ordered else 0.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--kill-every", type=float, default=90)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--var", default=str(ROOT / "var" / f"soak-{int(time.time())}"))
    args = parser.parse_args()
    port = args.port or free_port()
    var = Path(args.var)
    var.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(PORT=str(port), FORMALMARKET_VAR_DIR=str(var))
    log = open(var / "run.log", "wb")  # noqa: SIM115 - for the whole run
    started = time.monotonic()
    stack = subprocess.Popen(  # noqa: S603 - our own script
        [str(ROOT / "scripts" / "run.sh")], cwd=ROOT, env=env, stdout=log, stderr=log,
        start_new_session=True,
    )  # fmt: skip
    api = Api(f"http://127.0.0.1:{port}/api/v1")
    while api.call("GET", "/problems/?demo=true", None)[0] != 200:
        if stack.poll() is not None:
            print((var / "run.log").read_text()[-3000:], file=sys.stderr)
            return 1
        time.sleep(0.5)
    api.statuses.clear()
    api.failures.clear()
    ready_s = time.monotonic() - started
    urls = dict(
        line.split("=", 1) for line in (var / "stack.env").read_text().splitlines() if "=" in line
    )
    made = subprocess.run(  # noqa: S603
        [PY, "manage.py", "shell", "-c", MAKE_USERS.format(count=USERS, stamp=int(time.time()))],
        cwd=ROOT,
        env={**env, "DATABASE_URL": urls["DATABASE_URL"], "REDIS_URL": urls["REDIS_URL"]},
        capture_output=True,
        text=True,
        check=True,
    )
    tokens = json.loads(made.stdout.strip().splitlines()[-1])
    _, problems = api.call("GET", "/problems/?demo=true&language=python", None)
    target = next(p for p in problems["results"] if "391" in p["title"])
    _, detail = api.call("GET", f"/problems/{target['id']}/", None)
    verifier = detail["verifiers"][0]["id"]
    demo_ids = [p["id"] for p in problems["results"]]

    pending: dict[int, tuple[float, str]] = {}  # solution id -> (submitted at, token)
    verdicts_s: list[float] = []
    verdict_statuses: Counter[str] = Counter()
    accepted: list[tuple[int, str]] = []
    kills: list[dict[str, object]] = []
    next_kill = time.monotonic() + args.kill_every
    deadline = time.monotonic() + args.minutes * 60
    submitted = 0
    rng = random.Random(26)  # noqa: S311 - a load pattern, not a secret
    while time.monotonic() < deadline and stack.poll() is None:
        token = rng.choice(tokens)
        roll = rng.random()
        if roll < 0.25 and len(pending) < 6:
            # A new text each time (one solver's same text is the same solution, judged once):
            # leading spaces keep "17 23" accepted; "<n> 391" is rejected.
            submitted += 1
            text = " " * submitted + "17 23" if rng.random() < 0.7 else f"{submitted + 1} 391"
            status, body = api.call(
                "POST", "/solutions/", token, {"verifier": verifier, "text": text}
            )
            if status == 202:
                pending[body["id"]] = (time.monotonic(), token)
        elif roll < 0.55:
            problem = rng.choice(demo_ids)
            status, body = api.call(
                "POST", "/orders/", token,
                {"side": "bid", "problem": problem, "price_minor": rng.randint(1, 50),
                 "currency": "DEMO", "quantity": rng.randint(1, 3)},
            )  # fmt: skip
            if status == 201 and rng.random() < 0.5:
                api.call("POST", f"/orders/{body['id']}/cancel/", token)
        elif roll < 0.7 and accepted:
            solution, owner = accepted.pop()
            api.call(
                "POST", "/orders/", owner,
                {"side": "ask", "solution": solution, "price_minor": 1, "currency": "DEMO",
                 "quantity": 1},
            )  # fmt: skip
        else:
            api.call("GET", rng.choice(["/account/balances/", "/trades/", "/orders/"]), token)
            api.call("GET", f"/problems/{rng.choice(demo_ids)}/book/", None)
        for solution, (since, owner) in list(pending.items()):
            status, body = api.call("GET", f"/solutions/{solution}/status/", owner)
            if status == 200 and body["status"] in {"accepted", "rejected", "judge_error"}:
                verdicts_s.append(time.monotonic() - since)
                verdict_statuses[body["status"]] += 1
                del pending[solution]
                if body["status"] == "accepted":
                    accepted.append((solution, owner))
                for kill in kills:
                    if "recovered_s" not in kill and since >= kill["at"]:
                        kill["recovered_s"] = round(time.monotonic() - kill["at"], 1)
        if time.monotonic() >= next_kill:
            main_pid = worker_pid(stack.pid)
            pool = sorted(children(main_pid)) if main_pid else []
            which = "pool child" if len(kills) % 2 and pool else "worker"
            victim = pool[0] if which == "pool child" else main_pid
            if victim:
                os.kill(victim, signal.SIGKILL)
                kills.append({"at": time.monotonic(), "what": which, "pid": victim})
            next_kill = time.monotonic() + args.kill_every
        time.sleep(0.2)
    died = stack.poll() is not None
    interrupted = time.monotonic()
    if not died:
        os.kill(stack.pid, signal.SIGINT)
        stack.wait(timeout=120)
    stop_s = time.monotonic() - interrupted
    summary = {
        "minutes": args.minutes,
        "first_start_to_serving_s": round(ready_s, 1),
        "load_average_end": os.getloadavg(),
        "requests": dict(api.statuses),
        "latency_ms": {
            "p50": percentile(api.latencies_ms, 0.5),
            "p95": percentile(api.latencies_ms, 0.95),
            "p99": percentile(api.latencies_ms, 0.99),
            "max": percentile(api.latencies_ms, 1.0),
        },
        "failures": api.failures[:20],
        "submitted": submitted,
        "verdicts": dict(verdict_statuses),
        "verdict_s": {
            "median": round(statistics.median(verdicts_s), 1) if verdicts_s else None,
            "max": round(max(verdicts_s), 1) if verdicts_s else None,
        },
        "still_pending_at_end": len(pending),
        "kills": [{k: v for k, v in kill.items() if k != "at"} for kill in kills],
        "restarts_logged": (var / "run.log").read_text(errors="replace").count("restarting in"),
        "stack_died": died,
        "stop_s": round(stop_s, 1),
    }
    print(json.dumps(summary, indent=2))
    (var / "summary.json").write_text(json.dumps(summary, indent=2))
    bad = died or api.failures or not verdicts_s
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
