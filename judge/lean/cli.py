"""`python -m judge lean ...` (placeholder until the lean judge lands)."""

from __future__ import annotations

import argparse
from typing import Any

from judge.verdict import judge_error


def add_subparser(sub: Any) -> None:
    parser = sub.add_parser("lean", help="judge a lean solution")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    verdict = judge_error("the lean judge is not built yet")
    print(verdict.to_json())
    return verdict.exit_status
