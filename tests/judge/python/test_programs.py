"""Every example program gets exactly the verdict written in its header."""

from __future__ import annotations

import pathlib

import pytest

from judge.python import PythonJudge
from tests.judge.python.program_cases import ProgramCase, load_cases

PROGRAMS = pathlib.Path(__file__).parent / "programs"
CASES = load_cases(PROGRAMS)


def test_there_are_example_programs() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=[case.path.stem for case in CASES])
def test_program_gets_its_expected_verdict(python_judge: PythonJudge, case: ProgramCase) -> None:
    verdict = python_judge.judge(case.job)

    assert (verdict.verdict.value, verdict.reason.value if verdict.reason else None) == (
        case.verdict,
        case.reason,
    ), verdict.detail
    if case.detail is not None:
        assert case.detail in verdict.detail
    assert verdict.seed == case.job.seed
    assert python_judge.leftover_processes() == []
