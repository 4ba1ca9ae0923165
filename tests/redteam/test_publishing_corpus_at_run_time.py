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

from judge.python import PythonJob, PythonJudge

HERE = pathlib.Path(__file__).parent / "publishing"
ATTACKS = sorted((HERE / "attacks").glob("*.py"))
HONEST = sorted((HERE / "honest").glob("*.py"))
BY_NAME = sorted((HERE / "by_name").glob("*.py"))
PAYLOAD = "primefactors(391)[0]"
SHAPES = ("1", "x**2 - 1", "1 -1\n-1 2", '{"a": 1}')
RULE = ("InjectionBlocked", "not allowed in a verifier")


def test_no_attack_of_the_publishing_corpus_is_accepted_at_run_time(
    redteam_judge: PythonJudge,
) -> None:
    outcomes = {}
    for path in ATTACKS:
        verdict = redteam_judge.judge(PythonJob(path.read_text(), PAYLOAD, seed=3, time_limit_s=20))
        by_rule = any(marker in verdict.detail for marker in RULE)
        outcomes[path.stem] = (verdict.verdict.value, by_rule)

    assert len(outcomes) >= 200
    assert [name for name, (value, _) in outcomes.items() if value == "ACCEPTED"] == []
    # Most reach sympify with the payload and meet the rule; the rest expect another shape
    # (JSON, CSV, pairs) and fail before any text reaches code.
    assert sum(by_rule for _, by_rule in outcomes.values()) >= 180


def test_the_honest_verifiers_of_the_publishing_corpus_never_meet_the_rule(
    redteam_judge: PythonJudge,
) -> None:
    met = []
    for path in HONEST:
        for solution in SHAPES:
            job = PythonJob(path.read_text(), solution, seed=3, time_limit_s=20)
            verdict = redteam_judge.judge(job)
            if any(marker in verdict.detail for marker in RULE):
                met.append((path.stem, solution, verdict.detail))

    assert len(HONEST) >= 25
    assert met == []


def test_the_honest_verifiers_accept_their_right_solution_and_reject_the_wrong_one(
    redteam_judge: PythonJudge,
) -> None:
    verdicts = {}
    for path in HONEST:
        text = path.read_text()
        right = re.search(r"^# right: (.+)$", text, re.MULTILINE)
        wrong = re.search(r"^# wrong: (.+)$", text, re.MULTILINE)
        if right is None and wrong is None:
            continue
        assert right is not None and wrong is not None, path.name
        judged = []
        for solution in (json.loads(right.group(1)), json.loads(wrong.group(1))):
            verdict = redteam_judge.judge(PythonJob(text, solution, seed=3, time_limit_s=20))
            judged.append((verdict.verdict.value, verdict.reason and verdict.reason.value))
        verdicts[path.stem] = judged

    assert len(verdicts) >= 48
    expected = [("ACCEPTED", None), ("REJECTED", "WRONG_ANSWER")]
    assert {name: v for name, v in verdicts.items() if v != expected} == {}


def test_the_by_name_attacks_are_real_forgeries_that_only_publishing_stops(
    redteam_judge: PythonJudge,
) -> None:
    verdicts = {}
    for path in BY_NAME:
        text = path.read_text()
        match = re.search(r"^# solution: (\S+)$", text, re.MULTILINE)
        assert match is not None, path.name
        verdict = redteam_judge.judge(PythonJob(text, match.group(1), seed=3, time_limit_s=20))
        verdicts[path.stem] = verdict.verdict.value

    assert len(verdicts) == len(BY_NAME)
    assert sorted(set(verdicts.values())) == ["ACCEPTED"], verdicts
