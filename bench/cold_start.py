"""Benchmark of the Python judge's cold start; prints one JSON object, never asserts a timing.

A zygote's cold start is what a worker pays before its first verdict: the sandbox's bind list
(``build_rootfs``, one ``ldd`` run, once per process), bubblewrap, the interpreter importing
numpy, scipy, sympy and mpmath inside the sandbox, and the first pre-forked verdict child.
Measured in the same run, alternately:

- ``without_bytecode``: the interpreter is told to look for bytecode under an empty
  ``-X pycache_prefix``, so it compiles every module from source, as it did when the packages
  were installed by uv without ``--compile-bytecode`` (the sandbox is read-only: it can never
  write the result, so every zygote compiled them again);
- ``with_bytecode``: what the worker does now, after ``judge.sandbox.rootfs.compile_bytecode``
  (run at worker start) has written ``__pycache__`` beside the packages' sources.

Then the warm verdict (a trivial verifier) p50 through ``PythonJudge.judge``.

    .venv/bin/python bench/cold_start.py [--runs 3] [--verdicts 100]

``--compare REF`` (e.g. ``--compare main``) measures the cold start with bytecode before and
after in one run: it checks REF out as a ``git worktree`` in /tmp and starts zygotes from that
tree's ``judge`` package and from this one, alternating, ``--runs`` times each.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

ROOT = pathlib.Path(__file__).resolve().parents[1]
# --root: the tree whose judge package is measured (--compare runs this file once per tree).
JUDGE_ROOT = pathlib.Path(sys.argv[sys.argv.index("--root") + 1]) if "--root" in sys.argv else ROOT
sys.path.insert(0, str(JUDGE_ROOT.resolve()))

from judge.python import (  # noqa: E402
    PythonJob,
    PythonJudge,
    limits,  # noqa: E402
)
from judge.sandbox import procs, rootfs, zygote  # noqa: E402
from judge.sandbox.bwrap import build_argv  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
TRIVIAL = '"""Trivial."""\ndef verify(solution, rng):\n    return solution == "ok"\n'


def _cpu_s(pid: int) -> float:
    """CPU seconds of a live process (the zygote: its imports), load-independent."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _argv_without_bytecode(*args: object, **kwargs: object) -> list[str]:
    argv = build_argv(*args, **kwargs)  # type: ignore[arg-type]
    # Right after the interpreter, which follows bwrap's "--".
    at = argv.index("--") + 2
    return [*argv[:at], "-X", "pycache_prefix=/nonexistent-pycache", *argv[at:]]


def _cold_start(argv_builder: Callable[..., list[str]]) -> dict[str, float]:
    zygote.build_argv = argv_builder  # type: ignore[assignment]
    try:
        started = time.perf_counter()
        one = zygote.Zygote(max_cpu_s=int(limits.max_time_s()) + 1)
        ready = time.perf_counter()
        cpu_s = sum(_cpu_s(pid) for root in one.host_pids for pid in procs.descendants(root))
        one.prepare()
        prepared = time.perf_counter()
        one.close()
    finally:
        zygote.build_argv = build_argv
    return {"zygote_s": ready - started, "first_child_s": prepared - ready,
            "total_s": prepared - started, "zygote_cpu_s": cpu_s}  # fmt: skip


def _summary(samples: list[dict[str, float]]) -> dict[str, object]:
    return {
        key: {"p50": round(statistics.median(s[key] for s in samples), 3),
              "runs": [round(s[key], 3) for s in samples]}
        for key in samples[0]
    }  # fmt: skip


def _compare(ref: str, runs: int) -> None:
    tree = pathlib.Path(f"/tmp/fm-cold-{os.getpid()}")
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), ref],
        check=True,
        capture_output=True,
    )
    load_before = os.getloadavg()
    results: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    try:
        for _ in range(runs):  # alternate, so that load changes hit both alike
            for label, root in (("before", tree), ("after", ROOT)):
                done = subprocess.run(
                    [sys.executable, __file__, "--one", "--root", str(root)],
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
    report = {label: _summary(samples) for label, samples in results.items()}
    print(
        json.dumps(
            {
                "ref": ref,
                "load_average_before": [round(x, 2) for x in load_before],
                "load_average_after": [round(x, 2) for x in os.getloadavg()],
                "cold_start_with_bytecode": report,
            },
            indent=2,
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--verdicts", type=int, default=100)
    parser.add_argument("--compare", metavar="REF", help="before (REF) and after, in one run")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compare:
        _compare(args.compare, args.runs)
        return
    if args.one:  # one cold start with bytecode, of the tree --root names
        rootfs.build_rootfs()
        print(json.dumps(_cold_start(build_argv)))
        return
    load_before = os.getloadavg()

    started = time.perf_counter()
    compiled = rootfs.compile_bytecode()
    compile_s = time.perf_counter() - started
    started = time.perf_counter()
    rootfs.build_rootfs.cache_clear()
    rootfs.build_rootfs()
    rootfs_s = time.perf_counter() - started

    without: list[dict[str, float]] = []
    with_: list[dict[str, float]] = []
    for _ in range(args.runs):  # alternate, so that load changes hit both alike
        without.append(_cold_start(_argv_without_bytecode))
        with_.append(_cold_start(build_argv))

    judge = PythonJudge(size=1)
    try:
        judge.warm_up()
        times = []
        for index in range(args.verdicts):
            job = PythonJob(TRIVIAL, "ok", seed=index, time_limit_s=5, memory_limit_mb=256)
            began = time.perf_counter()
            verdict = judge.judge(job)
            times.append(time.perf_counter() - began)
            assert verdict.verdict.value == "ACCEPTED", verdict  # noqa: S101 -- a broken bench
    finally:
        judge.close()
    times.sort()
    print(
        json.dumps(
            {
                "load_average_before": [round(x, 2) for x in load_before],
                "load_average_after": [round(x, 2) for x in os.getloadavg()],
                "cpus": os.cpu_count(),
                "compile_bytecode": {"seconds": round(compile_s, 3), "files_compiled": compiled},
                "build_rootfs_s": round(rootfs_s, 3),
                "cold_start_without_bytecode": _summary(without),
                "cold_start_with_bytecode": _summary(with_),
                "warm_verdict_ms": {
                    "p50": round(1000 * statistics.median(times), 2),
                    "p95": round(1000 * times[int(0.95 * (len(times) - 1))], 2),
                    "verdicts": len(times),
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
