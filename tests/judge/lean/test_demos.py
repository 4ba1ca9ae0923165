"""The Lean demo problems are publishable (static checks; the real verdicts are in the image)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import judge
from judge.budgets import DEFAULT_LEAN_MAX_MEMORY_MB as DEFAULT_MAX_MEMORY_MB
from judge.budgets import DEFAULT_LEAN_MAX_TIME_S as DEFAULT_MAX_TIME_S
from judge.lean import static_check

DEMOS = Path(judge.__file__).resolve().parents[1] / "market" / "demo" / "lean"
DEMO_DIRS = sorted(path for path in DEMOS.iterdir() if path.is_dir())


def test_there_are_core_and_mathlib_demos() -> None:
    projects = [json.loads((path / "meta.json").read_text())["project"] for path in DEMO_DIRS]
    assert len(DEMO_DIRS) >= 3
    assert "core" in projects and "mathlib" in projects


@pytest.mark.parametrize("demo", DEMO_DIRS, ids=[path.name for path in DEMO_DIRS])
def test_demo_is_complete_and_passes_static_checks(demo: Path) -> None:
    meta = json.loads((demo / "meta.json").read_text(encoding="utf-8"))

    assert set(meta) == {"title", "statement_md", "project", "time_limit_s", "memory_limit_mb"}
    assert 0 < meta["time_limit_s"] <= DEFAULT_MAX_TIME_S
    assert 0 < meta["memory_limit_mb"] <= DEFAULT_MAX_MEMORY_MB
    for name in ("verifier.lean", "solution.lean", "wrong_solution.lean"):
        assert (demo / name).read_text(encoding="utf-8").strip()
    report = static_check((demo / "verifier.lean").read_text(encoding="utf-8"), meta["project"])
    assert report.errors == ()
    assert report.spec_kind in ("prop", "type")
