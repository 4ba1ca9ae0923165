"""The publishing check's corpus judged in the real sandbox: the run-time rule is the wall.

Every verifier of publishing/attacks/ lets the solution's text reach sympy by a flow a static
analysis can lose; judged with a payload that makes the judge compute the answer, none may be
ACCEPTED, whatever the publishing check says about it. Every verifier of publishing/honest/,
judged with solutions of a few shapes, must never meet the rule (it may be REJECTED, as any
verifier given a wrong answer). Those that record a ``# right:`` and a ``# wrong:`` solution
(a JSON string, on its own comment line) must ACCEPT the first and REJECT the second: an honest
verifier that publishes but cannot accept its own answer is no evidence of anything.

The verifiers of publishing/by_name/ are the other side of the model: the solution's text picks
a library function by name (a sink that is not code), so the run-time rule does not see them.
Judged raw with the name each needs, each is ACCEPTED: they are real forgeries, and the
publishing check (which refuses every one, ``test_publishing_corpus.py``) is their wall.
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from judge.python import PythonJob, PythonJudge
from judge.verdict import Verdict

HERE = pathlib.Path(__file__).parent / "publishing"
ATTACKS = sorted((HERE / "attacks").glob("*.py"))
HONEST = sorted((HERE / "honest").glob("*.py"))
BY_NAME = sorted((HERE / "by_name").glob("*.py"))
# The honest verifiers that record a right or a wrong solution (each must record both).
ANSWERED = [p for p in HONEST if re.search(r"^# (right|wrong): ", p.read_text(), re.MULTILINE)]
PAYLOAD = "primefactors(391)[0]"
SHAPES = ("1", "x**2 - 1", "1 -1\n-1 2", '{"a": 1}')
RULE = ("InjectionBlocked", "not allowed in a verifier")

# Each (verifier, solution) is judged once per session: the per-file tests and the corpus-wide
# count below read the same verdicts, whichever runs first.
_verdicts: dict[tuple[pathlib.Path, str], Verdict] = {}


def _judged(judge: PythonJudge, path: pathlib.Path, solution: str) -> Verdict:
    if (path, solution) not in _verdicts:
        job = PythonJob(path.read_text(), solution, seed=3, time_limit_s=20)
        _verdicts[(path, solution)] = judge.judge(job)
    return _verdicts[(path, solution)]


def _meets_the_rule(verdict: Verdict) -> bool:
    return any(marker in verdict.detail for marker in RULE)


def _ids(paths: list[pathlib.Path]) -> list[str]:
    return [path.stem for path in paths]


def test_the_corpus_has_its_size() -> None:
    assert len(ATTACKS) >= 200
    assert len(HONEST) >= 25
    assert len(ANSWERED) >= 48
    assert len(BY_NAME) >= 1


@pytest.mark.parametrize("path", ATTACKS, ids=_ids(ATTACKS))
def test_the_attack_is_not_accepted_at_run_time(
    redteam_judge: PythonJudge, path: pathlib.Path
) -> None:
    verdict = _judged(redteam_judge, path, PAYLOAD)

    assert verdict.verdict.value != "ACCEPTED", verdict.detail


def test_most_attacks_of_the_corpus_meet_the_rule(redteam_judge: PythonJudge) -> None:
    # Most reach sympify with the payload and meet the rule; the rest expect another shape
    # (JSON, CSV, pairs) and fail before any text reaches code.
    met = [_meets_the_rule(_judged(redteam_judge, path, PAYLOAD)) for path in ATTACKS]

    assert sum(met) >= 180


@pytest.mark.parametrize("path", HONEST, ids=_ids(HONEST))
def test_the_honest_verifier_never_meets_the_rule(
    redteam_judge: PythonJudge, path: pathlib.Path
) -> None:
    met = [
        (solution, verdict.detail)
        for solution in SHAPES
        if _meets_the_rule(verdict := _judged(redteam_judge, path, solution))
    ]

    assert met == []


@pytest.mark.parametrize("path", ANSWERED, ids=_ids(ANSWERED))
def test_the_honest_verifier_accepts_its_right_solution_and_rejects_the_wrong_one(
    redteam_judge: PythonJudge, path: pathlib.Path
) -> None:
    text = path.read_text()
    right = re.search(r"^# right: (.+)$", text, re.MULTILINE)
    wrong = re.search(r"^# wrong: (.+)$", text, re.MULTILINE)
    assert right is not None and wrong is not None

    judged = [
        _judged(redteam_judge, path, json.loads(answer.group(1))) for answer in (right, wrong)
    ]

    assert [(v.verdict.value, v.reason and v.reason.value) for v in judged] == [
        ("ACCEPTED", None),
        ("REJECTED", "WRONG_ANSWER"),
    ]


@pytest.mark.parametrize("path", BY_NAME, ids=_ids(BY_NAME))
def test_the_by_name_attack_is_a_real_forgery_that_only_publishing_stops(
    redteam_judge: PythonJudge, path: pathlib.Path
) -> None:
    match = re.search(r"^# solution: (\S+)$", path.read_text(), re.MULTILINE)
    assert match is not None

    verdict = _judged(redteam_judge, path, match.group(1))

    assert verdict.verdict.value == "ACCEPTED", verdict.detail
