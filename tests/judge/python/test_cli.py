"""`python -m judge python VERIFIER SOLUTION ...`: exit status and the JSON contract."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
VERIFIER = (
    '"""The integer 42."""\ndef verify(solution, rng):\n    return solution.strip() == "42"\n'
)


def _judge(
    *args: str, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "judge", "python", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )


@pytest.fixture
def verifier(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "verifier.py"
    path.write_text(VERIFIER)
    return path


def test_accepted_from_stdin_with_json(verifier: pathlib.Path) -> None:
    result = _judge(str(verifier), "-", "--seed", "17", "--json", stdin=b"42\n")

    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {
        "verdict", "reason", "detail", "seed", "wall_time_s", "cpu_time_s", "max_memory_mb",
        "judge_version",
    }  # fmt: skip
    assert (data["verdict"], data["reason"], data["seed"]) == ("ACCEPTED", None, 17)
    assert result.stdout.count(b"\n") == 1


def test_rejected_and_invalid_solutions_exit_1(
    verifier: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("41")
    huge = tmp_path / "huge.txt"
    huge.write_bytes(b"4" * 65_537)

    rejected = _judge(str(verifier), str(wrong), "--json")
    invalid = _judge(
        str(verifier), str(huge), "--json", "--time-limit", "1", "--memory-limit", "64"
    )

    assert rejected.returncode == 1
    assert json.loads(rejected.stdout)["reason"] == "WRONG_ANSWER"
    assert invalid.returncode == 1
    assert json.loads(invalid.stdout)["reason"] == "INVALID_SOLUTION"


@pytest.mark.parametrize(
    "args",
    [
        ["/nonexistent/verifier.py", "-"],
        ["{verifier}", "/nonexistent/solution.txt"],
        ["{verifier}", "-", "--seed", "-3"],
        ["{verifier}", "-", "--time-limit", "0"],
        ["{verifier}", "-", "--memory-limit", "abc"],
        ["{verifier}"],
    ],
)
def test_bad_usage_exits_2(verifier: pathlib.Path, args: list[str]) -> None:
    result = _judge(*(arg.format(verifier=verifier) for arg in args))

    assert result.returncode == 2
    assert result.stdout == b""


def test_sandbox_failure_exits_3(verifier: pathlib.Path) -> None:
    # An interpreter without bubblewrap on PATH and at /usr/bin is simulated by pointing the
    # rootfs at a missing harness: the judge must refuse (JUDGE_ERROR), not run unsandboxed.
    code = (
        "import sys, judge.sandbox.rootfs as r, pathlib\n"
        "r.HARNESS_SOURCE = pathlib.Path('/nonexistent/harness.py')\n"
        "from judge.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, "python", str(verifier), "-", "--json"],
        input=b"42",
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )

    assert result.returncode == 3
    data = json.loads(result.stdout)
    assert (data["verdict"], data["reason"]) == ("JUDGE_ERROR", None)
