"""Toolchain discovery, --check-toolchain, and refusing the fake outside tests."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from judge.cli import main
from judge.lean import toolchain_status
from judge.lean.toolchain import ToolchainUnavailable, discover

from .conftest import FakeToolchain


def test_no_toolchain_is_unavailable_with_a_reason(no_toolchain: None) -> None:
    status = toolchain_status()

    assert status.available is False
    assert status.reason == "no Lean toolchain on this server"
    assert status.versions == {}
    assert status.has_project("core") is False


def test_fake_toolchain_is_refused_without_the_test_switch(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUDGE_LEAN_ALLOW_FAKE_TOOLCHAIN")

    status = toolchain_status()

    assert status.available is False
    assert "is the test fixture (FAKE-TOOLCHAIN)" in status.reason


def test_fake_toolchain_reports_itself_as_fake(fake_toolchain: FakeToolchain) -> None:
    status = toolchain_status()

    assert status.available is True
    assert status.is_fake is True
    assert status.reason.startswith("FAKE Lean toolchain (test fixture)")
    assert status.projects == ("core", "mathlib")
    assert status.versions["mathlib"] == "fake0000mathlib"
    assert status.versions["comparator"] == "lake comparator"
    assert status.versions["bwrap"] == "bubblewrap 0.11.0"


def _replace_script(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_lean_older_than_4_35_is_refused(fake_toolchain: FakeToolchain) -> None:
    _replace_script(
        fake_toolchain.root / "bin" / "lean",
        'echo "Lean (version 4.34.1, x86_64-unknown-linux-gnu, Release) FAKE-TOOLCHAIN"\n',
    )

    with pytest.raises(ToolchainUnavailable, match="Lean 4.35.0 or newer is required"):
        discover()


def test_bubblewrap_without_overlay_support_is_refused(fake_toolchain: FakeToolchain) -> None:
    _replace_script(fake_toolchain.root / "sandbox" / "bwrap", 'echo "bubblewrap 0.8.0"\n')

    with pytest.raises(ToolchainUnavailable, match="bubblewrap 0.10.0 or newer is required"):
        discover()


def test_no_second_kernel_is_refused_unless_paranoid(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch
) -> None:
    (fake_toolchain.root / "bin" / "nanoda_bin").unlink()
    monkeypatch.setenv("PATH", "/usr/bin:/bin")

    with pytest.raises(ToolchainUnavailable, match="no second kernel"):
        discover()
    monkeypatch.setenv("JUDGE_LEAN_PARANOID", "1")
    assert discover().paranoid is True


def test_missing_projects_dir_is_refused(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUDGE_LEAN_PROJECTS_DIR")

    assert toolchain_status().reason == "JUDGE_LEAN_PROJECTS_DIR is not set (the Lake projects)"


def test_check_toolchain_exits_3_without_toolchain(
    no_toolchain: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lean", "--check-toolchain"]) == 3
    out = capsys.readouterr().out
    assert out.splitlines()[:2] == ["Lean judge: UNAVAILABLE", "  no Lean toolchain on this server"]


def test_check_toolchain_json_with_fake(
    fake_toolchain: FakeToolchain, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lean", "--check-toolchain", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["available"] is True
    assert data["is_fake"] is True
    assert data["projects"] == ["core", "mathlib"]
    assert (data["max_time_s"], data["max_memory_mb"]) == (600.0, 8192)
    # Each layer a job needs, on its own, so an operator sees which one fails.
    names = [item["name"] for item in data["preflight"]]
    assert names == ["host_userns", "sandbox", "overlay", "tools", "nested_bwrap", "canary"]
    blocking = [item for item in data["preflight"] if item["blocking"]]
    assert all(item["ok"] for item in blocking), data["preflight"]
    [host] = [item for item in data["preflight"] if item["name"] == "host_userns"]
    assert "apparmor_restrict_unprivileged_userns" in host["detail"]


def test_check_toolchain_names_the_failing_layer(
    fake_toolchain: FakeToolchain, capsys: pytest.CaptureFixture[str]
) -> None:
    # Lake's own bubblewrap cannot start inside ours (as under AppArmor's userns restriction, or
    # for a judge running as root): that layer is named, and the canary job is not even tried.
    fake_toolchain.configure(nested_bwrap_broken=True)

    assert main(["lean", "--check-toolchain", "--json"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["available"] is False
    by_name = {item["name"]: item for item in data["preflight"]}
    assert [name for name, item in by_name.items() if not item["ok"] and item["blocking"]] == [
        "nested_bwrap",
        "canary",
    ]
    assert "Can't mount proc" in by_name["nested_bwrap"]["detail"]
    assert by_name["canary"]["detail"] == "not run: an earlier layer failed"
    assert fake_toolchain.comparator_configs() == []


def test_server_caps_come_from_the_environment(
    fake_toolchain: FakeToolchain,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("JUDGE_LEAN_MAX_TIME_S", "90")
    monkeypatch.setenv("JUDGE_LEAN_MAX_MEMORY_MB", "3000")

    main(["lean", "--check-toolchain", "--json"])

    data = json.loads(capsys.readouterr().out)
    assert (data["max_time_s"], data["max_memory_mb"]) == (90.0, 3000)


def test_status_is_cached_briefly_and_can_be_refreshed(fake_toolchain: FakeToolchain) -> None:
    assert toolchain_status().available is True
    _replace_script(fake_toolchain.root / "bin" / "lean", "exit 1\n")

    assert toolchain_status().available is True  # reused within STATUS_MAX_AGE_S
    fresh = toolchain_status(max_age_s=0)
    assert fresh.available is False
    assert fresh.reason == "`lean --version` exited with 1"
