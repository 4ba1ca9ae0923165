"""Fixtures for the Lean judge tests: a FAKE toolchain in a temporary folder.

The fake is a test fixture (see fake_toolchain/README.md). The judge refuses it unless
JUDGE_LEAN_ALLOW_FAKE_TOOLCHAIN=1, which only these fixtures set.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fake_toolchain"
PROGRAMS = Path(__file__).parent / "programs"


class FakeToolchain:
    """A copy of the fake toolchain with its own log, cache and job folders."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.log_path = root / "calls.jsonl"
        self.cache_dir = root.parent / "cache"
        self.work_dir = root.parent / "jobs"
        self.configure()

    def configure(self, **options: object) -> None:
        data = {"log": str(self.log_path), "delay_s": 0.0, **options}
        (self.root / "fake.json").write_text(json.dumps(data))

    def calls(self, tool: str | None = None) -> list[dict]:
        if not self.log_path.exists():
            return []
        entries = [json.loads(line) for line in self.log_path.read_text().splitlines()]
        return [entry for entry in entries if tool is None or entry["tool"] == tool]

    def lake_builds(self) -> list[str]:
        return [entry["argv"][1] for entry in self.calls("lake") if entry["argv"][:1] == ["build"]]

    def comparator_configs(self) -> list[dict]:
        return [entry["config"] for entry in self.calls("lake comparator")]


@pytest.fixture
def fake_toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeToolchain]:
    root = tmp_path / "toolchain"
    shutil.copytree(FIXTURE, root, symlinks=True)
    fake = FakeToolchain(root)
    for name in list(os.environ):
        if name.startswith(("JUDGE_LEAN_", "COMPARATOR_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("JUDGE_LEAN_TOOLCHAIN_DIR", str(root))
    monkeypatch.setenv("JUDGE_LEAN_PROJECTS_DIR", str(root / "projects"))
    monkeypatch.setenv("COMPARATOR_BWRAP", str(root / "sandbox" / "bwrap"))
    monkeypatch.setenv("JUDGE_LEAN_CACHE_DIR", str(fake.cache_dir))
    monkeypatch.setenv("JUDGE_LEAN_WORK_DIR", str(fake.work_dir))
    monkeypatch.setenv("JUDGE_LEAN_ALLOW_FAKE_TOOLCHAIN", "1")
    # The system interpreter first: the fake scripts start faster than through a pyenv shim.
    monkeypatch.setenv("PATH", "/usr/bin:/bin:" + os.environ.get("PATH", ""))
    yield fake


@pytest.fixture(scope="module")
def shared_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One prepared-verifier cache for a whole module: each verifier is built once."""
    return tmp_path_factory.mktemp("shared-cache")


@pytest.fixture
def no_toolchain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith(("JUDGE_LEAN_", "COMPARATOR_")):
            monkeypatch.delenv(name)
    # An empty PATH directory: no `lean` to find.
    monkeypatch.setenv("PATH", str(tmp_path))


def program(name: str) -> str:
    return (PROGRAMS / name).read_text(encoding="utf-8")
