"""Argument parsing for ``python -m judge``; each language registers its subcommand."""

from __future__ import annotations

import argparse
import sys

from judge.verdict import EXIT_USAGE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m judge", description="FormalMarket judge")
    sub = parser.add_subparsers(dest="language", required=True)
    # Each language module adds its own subparser and sets `func`.
    from judge.python import cli as python_cli

    python_cli.add_subparser(sub)
    from judge.lean import cli as lean_cli

    lean_cli.add_subparser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage, 0 on --help
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    result: int = args.func(args)
    sys.stdout.flush()
    return result
