"""`python -m judge lean VERIFIER.lean SOLUTION.lean ...` and `--check-toolchain`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from judge.lean.pipeline import LeanJob, judge_lean
from judge.lean.preflight import PreflightItem, preflight_ok, run_preflight
from judge.lean.toolchain import (
    PROJECTS,
    ToolchainUnavailable,
    discover,
    server_caps,
)
from judge.lean.toolchain_status import toolchain_status
from judge.verdict import EXIT_ACCEPTED, EXIT_JUDGE_ERROR, EXIT_USAGE

DEFAULT_TIME_LIMIT_S = 120.0
DEFAULT_MEMORY_LIMIT_MB = 4096


def add_subparser(sub: Any) -> None:
    parser = sub.add_parser(
        "lean",
        help="judge a Lean solution against a Lean verifier",
        description="Judge SOLUTION.lean (`answer : Spec`) against VERIFIER.lean (`Spec`).",
    )
    parser.add_argument("verifier", nargs="?", help="the verifier module (Verifier.lean)")
    parser.add_argument("solution", nargs="?", help="the solution module, or - for stdin")
    parser.add_argument("--project", choices=PROJECTS, default="core")
    parser.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT_S, metavar="S")
    parser.add_argument("--memory-limit", type=int, default=DEFAULT_MEMORY_LIMIT_MB, metavar="MB")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--check-toolchain",
        action="store_true",
        help="print the Lean toolchain found here and exit non-zero if the judge cannot run",
    )
    parser.set_defaults(func=run)


def _check_toolchain(as_json: bool) -> int:
    status = toolchain_status(max_age_s=0)
    max_time, max_memory = server_caps()
    items: list[PreflightItem] = []
    if status.available:
        try:
            items = run_preflight(discover())
        except ToolchainUnavailable as exc:  # changed between the two looks
            items = [PreflightItem("toolchain", False, str(exc))]
    available = status.available and preflight_ok(items)
    if as_json:
        print(
            json.dumps(
                {
                    "available": available,
                    "reason": status.reason,
                    "versions": status.versions,
                    "projects": list(status.projects),
                    "is_fake": status.is_fake,
                    "max_time_s": max_time,
                    "max_memory_mb": max_memory,
                    "preflight": [item.as_dict() for item in items],
                },
                sort_keys=True,
            )
        )
    else:
        print(f"Lean judge: {'available' if available else 'UNAVAILABLE'}")
        print(f"  {status.reason}")
        for name, version in sorted(status.versions.items()):
            print(f"  {name}: {version}")
        if status.available:
            print(f"  projects: {', '.join(status.projects)}")
        print(f"  caps: {max_time:g} s, {max_memory} MB")
        for item in items:
            mark = "ok" if item.ok else ("FAIL" if item.blocking else "note")
            print(f"  [{mark}] {item.name}: {item.detail}")
    return EXIT_ACCEPTED if available else EXIT_JUDGE_ERROR


def _usage_error(message: str) -> int:
    print(f"python -m judge lean: {message}", file=sys.stderr)
    return EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    if args.check_toolchain:
        return _check_toolchain(args.json)
    if args.verifier is None or args.solution is None:
        return _usage_error("VERIFIER.lean and SOLUTION.lean are required")
    if not args.time_limit > 0 or args.memory_limit <= 0:
        return _usage_error("--time-limit and --memory-limit must be positive")
    try:
        verifier = Path(args.verifier).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return _usage_error(f"cannot read the verifier: {exc}")
    try:
        if args.solution == "-":
            solution = sys.stdin.buffer.read()
        else:
            solution = Path(args.solution).read_bytes()
    except OSError as exc:
        return _usage_error(f"cannot read the solution: {exc}")

    verdict = judge_lean(
        LeanJob(
            verifier_source=verifier,
            solution=solution,
            project=args.project,
            time_limit_s=args.time_limit,
            memory_limit_mb=args.memory_limit,
        )
    )
    if args.json:
        print(verdict.to_json())
    else:
        reason = f" ({verdict.reason.value})" if verdict.reason else ""
        print(f"{verdict.verdict.value}{reason}: {verdict.detail}")
        if verdict.axioms:
            print(f"  axioms: {', '.join(verdict.axioms)}")
    return verdict.exit_status
