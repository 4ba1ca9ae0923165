"""Benchmark of the Python judge; prints one JSON object, never asserts a timing.

(a) a trivial verifier, (b) one that imports numpy, scipy, sympy and mpmath. Each is timed
per verdict, seen by the caller of ``PythonJudge.judge``, in the sandbox (warm zygotes), and,
as a baseline measured in the same run, as a plain unsandboxed interpreter process that loads
the verifier and calls ``verify`` (what a judge without warm starts pays). Then the verdicts
per second that 2 workers (2 threads, 2 zygotes) sustain on (a).

    .venv/bin/python bench/judge.py [--runs 200] [--baseline-runs 20] [--throughput-jobs 600]

``--compare REF`` (e.g. ``--compare main``) measures the warm verdict before and after in one
run: it checks REF out as a ``git worktree`` in /tmp and runs the verdict scenarios (trivial,
four libraries, sympify-heavy, the first honest-sweep verdict of a fresh zygote) against that
tree's ``judge`` package and against this one, alternating, ``--rounds`` times.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
# --root: the tree whose judge package is measured (--compare runs this file once per tree).
JUDGE_ROOT = pathlib.Path(sys.argv[sys.argv.index("--root") + 1]) if "--root" in sys.argv else ROOT
sys.path.insert(0, str(JUDGE_ROOT.resolve()))

from judge.python import PythonJob, PythonJudge  # noqa: E402
from judge.sandbox import procs  # noqa: E402
from judge.sandbox.zygote import RECYCLE_AFTER_JOBS  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _sandbox_cpu_s(judge: PythonJudge) -> float:
    """CPU seconds used so far by the zygotes' process trees (fork costs land here)."""
    total = 0.0
    for zygote in list(judge._all):  # noqa: SLF001 -- a benchmark may look inside
        for root in zygote.host_pids:
            for pid in [root, *procs.descendants(root)]:
                try:
                    with open(f"/proc/{pid}/stat") as handle:
                        fields = handle.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return total


TRIVIAL = '"""Trivial."""\ndef verify(solution, rng):\n    return solution == "ok"\n'
FOUR_LIBS = (
    '"""Imports the four libraries."""\n'
    "import mpmath\nimport numpy\nimport scipy\nimport sympy\n\n"
    "def verify(solution, rng):\n"
    "    return solution == 'ok' and bool(numpy.int64(1) == 1)\n"
)
# The unsandboxed baseline: a fresh interpreter that does what the harness does.
BASELINE_RUNNER = (
    "import sys, numpy\n"
    "source = sys.stdin.read()\n"
    "namespace = {}\n"
    "exec(compile(source, 'verifier', 'exec'), namespace)\n"
    "result = namespace['verify']('ok', numpy.random.default_rng(1))\n"
    "sys.exit(0 if result is True else 1)\n"
)


def _percentiles(samples_s: list[float]) -> dict[str, float]:
    ordered = sorted(samples_s)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered) * 1000, 3),
        "p95_ms": round(p95 * 1000, 3),
        "min_ms": round(ordered[0] * 1000, 3),
    }


def _sandboxed(
    judge: PythonJudge, source: str, runs: int, solution: str = "ok"
) -> dict[str, object]:
    samples: list[float] = []
    inside: list[float] = []
    verdicts: set[str] = set()
    # Warm-up: the first verdict of a zygote also pays the pre-fork handshake.
    child_cpu = 0.0
    for _ in range(3):
        judge.judge(PythonJob(source, solution, seed=1))
    host_cpu_before = time.process_time()
    sandbox_cpu_before = _sandbox_cpu_s(judge)
    for i in range(runs):
        started = time.perf_counter()
        verdict = judge.judge(PythonJob(source, solution, seed=i))
        samples.append(time.perf_counter() - started)
        inside.append(verdict.wall_time_s)
        verdicts.add(verdict.verdict.value)
        child_cpu += verdict.cpu_time_s or 0.0
    host_cpu = time.process_time() - host_cpu_before
    zygote_cpu = _sandbox_cpu_s(judge) - sandbox_cpu_before
    per_verdict_ms = (host_cpu + zygote_cpu + child_cpu) / runs * 1000
    return {
        **_percentiles(samples),
        "verdict_wall_time_p50_ms": round(statistics.median(inside) * 1000, 3),
        "verdicts": sorted(verdicts),
        # Load-independent cost: CPU of the worker, the zygote (forks) and the verdict child.
        "cpu_ms_per_verdict": {
            "host": round(host_cpu / runs * 1000, 3),
            "zygote_fork": round(zygote_cpu / runs * 1000, 3),
            "verdict_child": round(child_cpu / runs * 1000, 3),
            "total": round(per_verdict_ms, 3),
            "implied_max_verdicts_per_s_on_2_idle_cores": round(2000 / per_verdict_ms, 1),
        },
    }


def _baseline(source: str, runs: int) -> dict[str, object]:
    samples: list[float] = []
    codes: set[int] = set()
    for _ in range(runs):
        started = time.perf_counter()
        result = subprocess.run(  # noqa: PLW1510
            [sys.executable, "-I", "-c", BASELINE_RUNNER],
            input=source.encode(),
            capture_output=True,
            env={"OPENBLAS_NUM_THREADS": "1"},
            check=False,
        )
        samples.append(time.perf_counter() - started)
        codes.add(result.returncode)
    return {**_percentiles(samples), "exit_codes": sorted(codes)}


def _throughput(jobs: int, workers: int) -> dict[str, object]:
    judge = PythonJudge(size=workers)
    try:
        judge.warm_up()
        for _ in range(workers * 2):
            judge.judge(PythonJob(TRIVIAL, "ok", seed=1))
        started = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as executor:
            verdicts = list(
                executor.map(judge.judge, (PythonJob(TRIVIAL, "ok", seed=i) for i in range(jobs)))
            )
        elapsed = time.perf_counter() - started
    finally:
        judge.close()
    accepted = sum(1 for verdict in verdicts if verdict.is_accepted)
    return {
        "workers": workers,
        "jobs": jobs,
        "accepted": accepted,
        "elapsed_s": round(elapsed, 3),
        "verdicts_per_s": round(jobs / elapsed, 1),
    }


# Literal expressions sympified by the verifier (admitted by the run-time rule), the solution
# read with parse_math: the case the old run-time grammar made expensive.
SYMPIFY_HEAVY = (
    '"""Sympifies its own literals, parses the solution safely."""\n'
    "import sympy\nfrom formalmarket_verify import parse_math\n"
    "FORMS = ['x**2 + 2*x + 1', '(x + 1)**2', 'sin(x)**2 + cos(x)**2', 'x**3 - 6*x**2 + 11*x - 6',"
    " 'exp(I*pi) + 1', 'sqrt(8) - 2*sqrt(2)', 'Rational(1, 3) + Rational(2, 3)', 'x*(x - 1)',"
    " 'log(E**3)', 'factorial(5)']\n"
    "def verify(solution, rng):\n"
    "    x = sympy.Symbol('x')\n"
    "    forms = [sympy.sympify(f) for f in FORMS]\n"
    "    return parse_math(solution, {'x': x}) == sympy.expand(forms[0] - forms[1]) + 1\n"
)
HONEST_SWEEP = ROOT / "tests" / "judge" / "python" / "programs" / "honest_sweep.py"


def _first_verdict_ms(source: str) -> dict[str, object]:
    """A fresh zygote, warmed as the pool warms it; then one honest-sweep verdict."""
    judge = PythonJudge(size=1)
    try:
        judge.warm_up()
        started = time.perf_counter()
        verdict = judge.judge(PythonJob(source, "", seed=1, time_limit_s=60, memory_limit_mb=512))
        elapsed = time.perf_counter() - started
    finally:
        judge.close()
    return {"ms": round(elapsed * 1000, 1), "verdict": verdict.verdict.value}


def _scenarios(runs: int) -> dict[str, object]:
    report: dict[str, object] = {"load_avg_1m": round(os.getloadavg()[0], 2)}
    for name, source, solution in (
        ("trivial", TRIVIAL, "ok"),
        ("four_libraries", FOUR_LIBS, "ok"),
        ("sympify_heavy", SYMPIFY_HEAVY, "1"),
    ):
        judge = PythonJudge(size=1)
        judge.warm_up()
        try:
            result = _sandboxed(judge, source, runs, solution)
        finally:
            judge.close()
        cpu = {k: v for k, v in result["cpu_ms_per_verdict"].items() if "implied" not in k}  # type: ignore[attr-defined]
        report[name] = {
            "p50_ms": result["p50_ms"],
            "p95_ms": result["p95_ms"],
            "cpu_ms_per_verdict": cpu,
            "verdicts": result["verdicts"],
        }
    report["first_honest_sweep_verdict"] = _first_verdict_ms(HONEST_SWEEP.read_text())
    return report


def _compare(ref: str, runs: int, rounds: int) -> None:
    tree = pathlib.Path(f"/tmp/fm-bench-{os.getpid()}")
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), ref],
        check=True,
        capture_output=True,
    )
    results: dict[str, list[object]] = {"before": [], "after": []}
    try:
        for _ in range(rounds):
            for label, root in (("before", tree), ("after", ROOT)):
                done = subprocess.run(
                    [sys.executable, __file__, "--scenarios", "--runs", str(runs)]
                    + ["--root", str(root)],
                    capture_output=True,
                    check=True,
                    text=True,
                    cwd=root,
                )
                results[label].append(json.loads(done.stdout))
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
            check=False,
            capture_output=True,
        )
    print(json.dumps({"ref": ref, "runs_per_scenario": runs, **results}, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--baseline-runs", type=int, default=20)
    parser.add_argument("--throughput-jobs", type=int, default=600)
    parser.add_argument("--compare", metavar="REF", help="before (REF) and after, in one run")
    parser.add_argument("--rounds", type=int, default=2, help="--compare: alternations")
    parser.add_argument("--scenarios", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compare:
        _compare(args.compare, min(args.runs, RECYCLE_AFTER_JOBS - 10), args.rounds)
        return
    if args.scenarios:
        print(json.dumps(_scenarios(min(args.runs, RECYCLE_AFTER_JOBS - 10))))
        return
    # Stay below the zygote's recycling point so one scenario measures one zygote.
    args.runs = min(args.runs, RECYCLE_AFTER_JOBS - 10)

    started = time.perf_counter()
    first = PythonJudge(size=1)
    first.warm_up()
    cold_start_s = time.perf_counter() - started
    try:
        trivial = _sandboxed(first, TRIVIAL, args.runs)
    finally:
        first.close()
    # A fresh zygote per scenario: a zygote is replaced every 500 verdicts, which would mix
    # two processes' CPU counters in one scenario.
    second = PythonJudge(size=1)
    second.warm_up()
    try:
        four = _sandboxed(second, FOUR_LIBS, args.runs)
    finally:
        second.close()
    report: dict[str, object] = {
        "machine": {"cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)},
        "zygote_cold_start_ms": round(cold_start_s * 1000, 1),
        "a_trivial": {
            "sandboxed_warm": trivial,
            "baseline_unsandboxed_cold": _baseline(TRIVIAL, args.baseline_runs),
        },
        "b_four_libraries": {
            "sandboxed_warm": four,
            "baseline_unsandboxed_cold": _baseline(FOUR_LIBS, args.baseline_runs),
        },
    }
    report["throughput_a_2_workers"] = _throughput(args.throughput_jobs, 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
