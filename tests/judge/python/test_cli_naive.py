"""Naive verifiers run from the command line are protected by the same run-time rule.

`python -m judge python VERIFIER SOLUTION` runs no publishing check: the sandbox's guard alone
stands between a verifier that evaluates its input and a forged ACCEPTED (issue 25: three of
the outside red team's forgeries came this way).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
N = 1000000016000000063  # 1000000007 * 1000000009
PAYLOAD = f"primefactors({N})[0]"
CHECK = f"    return 1 < p < {N} and {N} % p == 0\n"
NAIVE = {
    "sympify": (
        f"import sympy\ndef verify(solution, rng):\n    p = sympy.sympify(solution)\n{CHECK}"
    ),
    "parse_expr": (
        "from sympy.parsing.sympy_parser import parse_expr\n"
        f"def verify(solution, rng):\n    p = parse_expr(solution)\n{CHECK}"
    ),
    "eval": f"from sympy import *\ndef verify(solution, rng):\n    p = eval(solution)\n{CHECK}",
}


@pytest.mark.parametrize("name", sorted(NAIVE))
def test_a_naive_verifier_on_the_command_line_is_a_runtime_error(
    tmp_path: pathlib.Path, name: str
) -> None:
    verifier = tmp_path / "verifier.py"
    verifier.write_text(NAIVE[name])
    solution = tmp_path / "solution.txt"
    solution.write_text(PAYLOAD)

    done = subprocess.run(
        [sys.executable, "-m", "judge", "python", str(verifier), str(solution), "--json"],
        capture_output=True,
        cwd=ROOT,
        env=dict(os.environ),
        timeout=300,
        check=False,
    )

    verdict = json.loads(done.stdout)
    assert (verdict["verdict"], verdict["reason"]) == ("REJECTED", "RUNTIME_ERROR"), verdict
    assert "is not a literal of the verifier's code" in verdict["detail"]
    assert done.returncode == 1
