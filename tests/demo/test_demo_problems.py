"""Every Python demo problem: its reference solution is ACCEPTED and its wrong one REJECTED
by the real judge (sandboxed), and its verifier passes the publishing static checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.python import PythonJob, judge_python, static_check
from market.demo.loader import DEMO_DIR

PYTHON_DEMOS = sorted(p for p in (DEMO_DIR / "python").iterdir() if p.is_dir())
META_KEYS = {"title", "slug", "statement_md", "time_limit_s", "memory_limit_mb"}


def test_there_are_at_least_four_python_demo_problems():
    assert len(PYTHON_DEMOS) >= 4


def _job(folder: Path, solution_file: str, seed: int) -> PythonJob:
    meta = json.loads((folder / "meta.json").read_text())
    return PythonJob(
        verifier_source=(folder / "verifier.py").read_text(),
        solution=(folder / solution_file).read_text(),
        seed=seed,
        time_limit_s=float(meta["time_limit_s"]),
        memory_limit_mb=int(meta["memory_limit_mb"]),
    )


@pytest.mark.parametrize("folder", PYTHON_DEMOS, ids=lambda p: p.name)
def test_demo_meta_and_static_checks(folder: Path):
    meta = json.loads((folder / "meta.json").read_text())
    assert META_KEYS <= set(meta)
    assert meta["slug"].startswith("demo-")
    report = static_check((folder / "verifier.py").read_text())
    assert report.errors == ()
    assert report.ok is True
    assert report.docstring.startswith("Solution format:")


@pytest.mark.parametrize("folder", PYTHON_DEMOS, ids=lambda p: p.name)
@pytest.mark.parametrize("seed", [1, 20261130])
def test_reference_solution_is_accepted(folder: Path, seed: int):
    verdict = judge_python(_job(folder, "solution.txt", seed))
    assert (verdict.verdict.value, verdict.reason, verdict.seed) == ("ACCEPTED", None, seed)


@pytest.mark.parametrize("folder", PYTHON_DEMOS, ids=lambda p: p.name)
def test_wrong_solution_is_rejected(folder: Path):
    verdict = judge_python(_job(folder, "wrong_solution.txt", 7))
    assert verdict.verdict.value == "REJECTED"
    assert verdict.reason.value == "WRONG_ANSWER"


@pytest.mark.parametrize(
    "folder_name,solution",
    [
        ("antiderivative", '__import__("os").system("true")'),
        ("antiderivative", "x**2*exp(x) + (lambda: 1)()"),
        # Right derivative wherever there is one, and a jump (of 5*pi at 0, of pi at 2): no
        # antiderivative on the line (outside red team, 2026-12-06: it was ACCEPTED).
        (
            "antiderivative",
            "x**2*exp(x) - 2*x*exp(x) + 2*exp(x) + 5*atan(x) + 5*atan(1/x)",
        ),
        ("antiderivative", "(x**2 - 2*x + 2)*exp(x) + atan(x - 2) + atan(1/(x - 2))"),
        ("antiderivative", "(x**2 - 2*x + 2)*exp(x) + floor(x)"),
        ("cubic-root", "().__class__"),
        ("cubic-root", "b ** 10 ** 10"),
        ("factor-391", "391 1"),
        ("petersen-colouring", "1 1 1 1 1 1 1 1 1 1"),
        ("factor-391", ""),
    ],
)
def test_hostile_or_trivial_solutions_are_rejected(folder_name: str, solution: str):
    folder = DEMO_DIR / "python" / folder_name
    meta = json.loads((folder / "meta.json").read_text())
    verdict = judge_python(
        PythonJob(
            verifier_source=(folder / "verifier.py").read_text(),
            solution=solution,
            seed=3,
            time_limit_s=float(meta["time_limit_s"]),
            memory_limit_mb=int(meta["memory_limit_mb"]),
        )
    )
    assert verdict.verdict.value == "REJECTED"


@pytest.mark.parametrize(
    "solution",
    [
        "x**2*exp(x) - 2*x*exp(x) + 2*exp(x) + 7",
        "exp(x)*(x - 1)**2 + exp(x) - 1/3",
        "(x**2 - 2*x + 2)*exp(x) + atan(exp(x)) + atan(exp(-x))",  # + pi/2, continuous
    ],
)
def test_every_form_of_the_antiderivative_is_accepted(solution: str):
    folder = DEMO_DIR / "python" / "antiderivative"
    meta = json.loads((folder / "meta.json").read_text())
    verdict = judge_python(
        PythonJob(
            verifier_source=(folder / "verifier.py").read_text(),
            solution=solution,
            seed=3,
            time_limit_s=float(meta["time_limit_s"]),
            memory_limit_mb=int(meta["memory_limit_mb"]),
        )
    )
    assert (verdict.verdict.value, verdict.reason) == ("ACCEPTED", None), verdict.detail
