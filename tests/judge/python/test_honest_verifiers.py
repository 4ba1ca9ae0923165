"""The honest-code sweep in the real sandbox: the run-time rule refuses none of it.

Every demo verifier (market/demo/python) with its right and wrong solution, and the honest
example programs, judged twice in a fresh zygote (the second round sees the first's caches).
"""

from __future__ import annotations

import collections.abc
import pathlib

import pytest

from judge.python import PythonJob, PythonJudge
from tests.judge.python.program_cases import load_case

ROOT = pathlib.Path(__file__).resolve().parents[3]
DEMO = sorted((ROOT / "market" / "demo" / "python").iterdir())
PROGRAMS = pathlib.Path(__file__).parent / "programs"
HONEST = [
    "honest_sweep",
    "guard_allows_ordinary_codegen",
    "lazy_imports_work",
    "modest_work_all_libraries",
]
EXPECTED = (("solution.txt", "ACCEPTED"), ("wrong_solution.txt", "REJECTED"))


@pytest.fixture(scope="module")
def fresh_judge() -> collections.abc.Iterator[PythonJudge]:
    judge = PythonJudge(size=1)
    yield judge
    judge.close()


def test_every_demo_verifier_and_honest_program_is_judged_as_before_twice(
    fresh_judge: PythonJudge,
) -> None:
    seen = []
    for round_ in (1, 2):
        for folder in DEMO:
            source = (folder / "verifier.py").read_text()
            for name, expected in EXPECTED:
                job = PythonJob(source, (folder / name).read_text(), seed=7, time_limit_s=30)
                verdict = fresh_judge.judge(job)
                seen.append((round_, folder.name, name, verdict.verdict.value, verdict.detail))
                assert verdict.verdict.value == expected, seen[-1]
                assert "literal of the verifier" not in verdict.detail, seen[-1]
        for program in HONEST:
            case = load_case(PROGRAMS / f"{program}.py")
            verdict = fresh_judge.judge(case.job)
            assert verdict.verdict.value == "ACCEPTED", (round_, program, verdict.detail)
    assert len(seen) == 2 * 2 * len(DEMO)
