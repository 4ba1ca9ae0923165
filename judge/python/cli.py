"""The ``python`` subcommand of ``python -m judge``.

``python -m judge python VERIFIER.py SOLUTION [--seed N] [--time-limit S] [--memory-limit MB]
[--json]``; SOLUTION may be ``-`` (stdin). Exit 0 ACCEPTED, 1 REJECTED, 2 usage, 3 JUDGE_ERROR.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from judge.python.job import PythonJob
from judge.python.runner import judge_python
from judge.verdict import EXIT_USAGE


def add_subparser(sub: Any) -> None:
    parser = sub.add_parser("python", help="judge a python solution in the sandbox")
    parser.add_argument("verifier", help="the verifier module (defines verify(solution, rng))")
    parser.add_argument("solution", help="the solution file, or - for standard input")
    parser.add_argument("--seed", type=int, default=None, help="rng seed (default: random)")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds (default 10)")
    parser.add_argument("--memory-limit", type=int, default=256, help="MB (default 256)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        with open(args.verifier, encoding="utf-8") as handle:
            source = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"cannot read verifier {args.verifier}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.solution == "-":
            solution = sys.stdin.buffer.read()
        else:
            with open(args.solution, "rb") as handle:
                solution = handle.read()
    except OSError as exc:
        print(f"cannot read solution {args.solution}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.seed is not None and args.seed < 0:
        print("--seed must be a non-negative integer", file=sys.stderr)
        return EXIT_USAGE
    if args.time_limit <= 0 or args.memory_limit <= 0:
        print("--time-limit and --memory-limit must be positive", file=sys.stderr)
        return EXIT_USAGE
    verdict = judge_python(
        PythonJob(
            verifier_source=source,
            solution=solution,
            seed=args.seed,
            time_limit_s=args.time_limit,
            memory_limit_mb=args.memory_limit,
        )
    )
    if args.json:
        print(verdict.to_json())
    else:
        reason = f" {verdict.reason.value}" if verdict.reason else ""
        print(f"{verdict.verdict.value}{reason}: {verdict.detail} (seed {verdict.seed})")
    return verdict.exit_status
