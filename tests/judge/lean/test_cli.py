"""`python -m judge lean VERIFIER SOLUTION ...` against the FAKE toolchain."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from judge.cli import main

from .conftest import PROGRAMS, FakeToolchain

VERIFIER = str(PROGRAMS / "verifiers" / "two_plus_two.lean")


def test_json_output_and_exit_status_for_acceptance(
    fake_toolchain: FakeToolchain, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["lean", VERIFIER, str(PROGRAMS / "solutions" / "ok.lean"), "--json"])

    data = json.loads(capsys.readouterr().out)
    assert status == 0
    assert data["verdict"] == "ACCEPTED"
    assert data["reason"] is None
    assert data["axioms"] == []
    assert data["seed"] is None
    assert data["judge_version"].endswith("+FAKE-lean-toolchain")


def test_rejection_exits_1_with_reason(
    fake_toolchain: FakeToolchain, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["lean", VERIFIER, str(PROGRAMS / "solutions" / "axiom_cheat.lean"), "--json"])

    data = json.loads(capsys.readouterr().out)
    assert status == 1
    assert (data["verdict"], data["reason"], data["axioms"]) == (
        "REJECTED",
        "AXIOM_VIOLATION",
        ["cheat"],
    )


def test_solution_from_stdin(
    fake_toolchain: FakeToolchain,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"-- fake: compile_error\ntheorem answer : Spec := x\n"))
    monkeypatch.setattr(sys, "stdin", stdin)

    status = main(["lean", VERIFIER, "-", "--json"])

    assert status == 1
    assert json.loads(capsys.readouterr().out)["reason"] == "COMPILE_ERROR"


def test_unreadable_input_is_exit_2(tmp_path: Path, fake_toolchain: FakeToolchain) -> None:
    assert main(["lean", str(tmp_path / "missing.lean"), VERIFIER]) == 2
    assert main(["lean", VERIFIER, str(tmp_path / "missing.lean")]) == 2
    assert main(["lean", VERIFIER]) == 2
    assert main(["lean", VERIFIER, VERIFIER, "--project", "lean3"]) == 2
    assert fake_toolchain.calls() == []


def test_judge_error_exits_3(no_toolchain: None, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["lean", VERIFIER, str(PROGRAMS / "solutions" / "ok.lean")])

    assert status == 3
    assert capsys.readouterr().out == "JUDGE_ERROR: no Lean toolchain on this server\n"
