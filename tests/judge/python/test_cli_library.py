"""`python -m judge python V.py SOL` with a verifier that imports the verifier library: the
library is inside the sandbox's read-only site folder, and its refusals are plain rejections."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
VERIFIER = '''"""An expression in x equal to (x + 1)**2."""
import sympy
from formalmarket_verify import ParseError, parse_math

X = sympy.Symbol("x")


def verify(solution, rng):
    try:
        expr = parse_math(solution, {"x": X})
    except ParseError:
        return False
    return sympy.expand(expr - (X + 1) ** 2) == 0
'''


@pytest.mark.parametrize(
    ("solution", "verdict", "status"),
    [
        ("x**2 + 2*x + 1", "ACCEPTED", 0),
        ("(x + 1)*(x - 1)", "REJECTED", 1),
        ("((10**1000)**1000)**1000", "REJECTED", 1),
        ("__import__('os').system('true')", "REJECTED", 1),
    ],
)
def test_a_verifier_using_the_library_runs_from_the_command_line(
    tmp_path: pathlib.Path, solution: str, verdict: str, status: int
) -> None:
    verifier = tmp_path / "verifier.py"
    verifier.write_text(VERIFIER)
    answer = tmp_path / "solution.txt"
    answer.write_text(solution)

    result = subprocess.run(
        [sys.executable, "-m", "judge", "python", str(verifier), str(answer), "--json",
         "--seed", "1"],
        capture_output=True,
        cwd=ROOT,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )  # fmt: skip

    report = json.loads(result.stdout)
    assert (result.returncode, report["verdict"]) == (status, verdict)
    if verdict == "REJECTED":
        assert report["reason"] == "WRONG_ANSWER"
        assert report["wall_time_s"] < 2.0
