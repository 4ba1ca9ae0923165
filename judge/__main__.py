"""Command line: ``python -m judge python|lean ...`` (the contract is in DESIGN.md)."""

from judge.cli import main

raise SystemExit(main())
