"""The public API: judge_python never raises, records seeds, is thread-safe, self-tests."""

from __future__ import annotations

import concurrent.futures

import pytest

from judge.python import PythonJob, PythonJudge, judge_python, run_selftest
from judge.sandbox import SandboxUnavailable, procs, seccomp
from judge.verdict import MAX_SOLUTION_BYTES

ECHO = '"""Echo."""\ndef verify(solution, rng):\n    return solution == "ok"\n'


def _outcome(verdict: object) -> tuple[str, str | None]:
    return verdict.verdict.value, verdict.reason.value if verdict.reason else None  # type: ignore[attr-defined]


def test_judge_python_uses_the_process_wide_judge() -> None:
    first = judge_python(PythonJob(ECHO, "ok", seed=None, time_limit_s=5, memory_limit_mb=64))
    second = judge_python(PythonJob(ECHO, b"no", seed=9, time_limit_s=5, memory_limit_mb=64))

    assert _outcome(first) == ("ACCEPTED", None)
    assert isinstance(first.seed, int) and 0 <= first.seed < 2**63
    assert _outcome(second) == ("REJECTED", "WRONG_ANSWER")
    assert second.seed == 9


@pytest.mark.parametrize(
    ("solution", "expected"),
    [
        (b"x" * (MAX_SOLUTION_BYTES + 1), ("REJECTED", "INVALID_SOLUTION")),
        (b"\xff\xfe", ("REJECTED", "INVALID_SOLUTION")),
        ("\udc80", ("REJECTED", "INVALID_SOLUTION")),
        ("é" * (MAX_SOLUTION_BYTES // 2 + 1), ("REJECTED", "INVALID_SOLUTION")),
        (12345, ("REJECTED", "INVALID_SOLUTION")),
        (b"x" * MAX_SOLUTION_BYTES, ("REJECTED", "WRONG_ANSWER")),
    ],
)
def test_bad_solutions_are_rejected_without_running(
    python_judge: PythonJudge, solution: object, expected: tuple[str, str]
) -> None:
    verdict = python_judge.judge(PythonJob(ECHO, solution, seed=1))  # type: ignore[arg-type]

    assert _outcome(verdict) == expected


@pytest.mark.parametrize(
    ("job", "expected"),
    [
        (PythonJob(ECHO, "ok", seed=-1), ("JUDGE_ERROR", None)),
        (PythonJob(ECHO, "ok", seed=2**63), ("JUDGE_ERROR", None)),
        (PythonJob(None, "ok", seed=1), ("REJECTED", "RUNTIME_ERROR")),  # type: ignore[arg-type]
        # Out of the budget range: refused (issue 15), never clamped into it.
        (PythonJob(ECHO, "ok", seed=1, time_limit_s=float("nan")), ("JUDGE_ERROR", None)),
        (PythonJob(ECHO, "ok", seed=1, memory_limit_mb=1), ("JUDGE_ERROR", None)),
    ],
)
def test_bad_jobs_never_raise(
    python_judge: PythonJudge, job: PythonJob, expected: tuple[str, str]
) -> None:
    assert _outcome(python_judge.judge(job)) == expected


def test_a_budget_over_the_server_caps_is_refused_not_clamped(
    python_judge: PythonJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_PYTHON_MAX_TIME_S", "0.3")
    spin = '"""Spin."""\ndef verify(solution, rng):\n    while True:\n        pass\n'

    refused = python_judge.judge(PythonJob(spin, "", seed=1, time_limit_s=3600))
    at_the_cap = python_judge.judge(PythonJob(spin, "", seed=1, time_limit_s=0.3))

    assert _outcome(refused) == ("JUDGE_ERROR", None)
    assert refused.detail == (
        "the python budget is out of range: time_limit_s must be in [0.05, 0.3] seconds"
    )
    assert _outcome(at_the_cap) == ("REJECTED", "TIME_LIMIT")
    assert at_the_cap.detail == "time limit of 0.3 s exceeded (wall clock)"


def test_a_budget_below_the_judges_minimum_is_refused(python_judge: PythonJudge) -> None:
    verdict = python_judge.judge(PythonJob(ECHO, "ok", seed=1, memory_limit_mb=31))

    assert _outcome(verdict) == ("JUDGE_ERROR", None)
    assert verdict.detail == (
        "the python budget is out of range: memory_limit_mb must be in [32, 1024] MB"
    )


def test_a_trivial_verdict_is_charged_little_memory(python_judge: PythonJudge) -> None:
    verdict = python_judge.judge(PythonJob(ECHO, "ok", seed=1, memory_limit_mb=64))

    # The pre-imported libraries live in the zygote and are not charged to the verdict.
    assert verdict.max_memory_mb is not None and verdict.max_memory_mb < 16


def test_concurrent_verdicts_on_a_pool_of_two() -> None:
    judge = PythonJudge(size=2)
    jobs = [PythonJob(ECHO, "ok" if i % 2 else "no", seed=i) for i in range(16)]
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as executor:
            verdicts = list(executor.map(judge.judge, jobs))
    finally:
        judge.close()

    assert [v.verdict.value for v in verdicts] == ["REJECTED", "ACCEPTED"] * 8
    assert [v.seed for v in verdicts] == list(range(16))


def test_no_sandbox_means_judge_error_never_an_unsandboxed_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def missing() -> str:
        raise SandboxUnavailable("bubblewrap is not installed")

    monkeypatch.setattr("judge.sandbox.bwrap.find_bwrap", missing)
    judge = PythonJudge(size=1)
    try:
        verdict = judge.judge(PythonJob(ECHO, "ok", seed=1))
    finally:
        judge.close()

    assert _outcome(verdict) == ("JUDGE_ERROR", None)
    assert "bubblewrap is not installed" in verdict.detail


def test_selftest_passes_on_a_full_sandbox(python_judge: PythonJudge) -> None:
    run_selftest(python_judge)


def test_selftest_fails_loudly_when_seccomp_is_off() -> None:
    weakened = PythonJudge(size=1, seccomp_program=seccomp.allow_all_filter())
    try:
        with pytest.raises(SandboxUnavailable) as failure:
            run_selftest(weakened)
    finally:
        weakened.close()

    message = str(failure.value)
    assert message.startswith("PYTHON JUDGE SELF-TEST FAILED")
    for leak in ("socketpair", "signal parent", "fork"):
        assert leak in message


def test_selftest_fails_without_cgroups() -> None:
    weakened = PythonJudge(size=1, use_cgroup=False)
    try:
        with pytest.raises(SandboxUnavailable) as failure:
            run_selftest(weakened)
    finally:
        weakened.close()

    assert "no cgroup memory+pids controller" in str(failure.value)


def test_without_cgroups_memory_is_capped_by_the_data_rlimit() -> None:
    bomb = (
        '"""Bomb."""\ndef verify(solution, rng):\n'
        "    hoard = [bytearray(1 << 20) for _ in range(4096)]\n    return True\n"
    )
    small = (
        '"""Small."""\ndef verify(solution, rng):\n'
        "    block = bytearray(16 << 20)\n    return len(block) > 0\n"
    )
    judge = PythonJudge(size=1, use_cgroup=False)
    try:
        over = judge.judge(PythonJob(bomb, "", seed=1, memory_limit_mb=64))
        under = judge.judge(PythonJob(small, "", seed=1, memory_limit_mb=64))
    finally:
        judge.close()

    assert _outcome(over) == ("REJECTED", "MEMORY_LIMIT")
    assert _outcome(under) == ("ACCEPTED", None)


def test_a_recycled_zygote_is_replaced_in_the_background_and_leaves_nothing() -> None:
    judge = PythonJudge(size=1, recycle_after=3)
    try:
        first = judge.judge(PythonJob(ECHO, "ok", seed=0))
        first_sandbox = set(judge.sandbox_processes())
        rest = [judge.judge(PythonJob(ECHO, "ok", seed=i)) for i in range(1, 5)]
        second_sandbox = set(judge.sandbox_processes())
    finally:
        judge.close()

    assert [v.verdict.value for v in [first, *rest]] == ["ACCEPTED"] * 5
    assert len(first_sandbox) >= 3  # bwrap, its pid-namespace init, the zygote (+ idle child)
    assert first_sandbox.isdisjoint(second_sandbox)
    assert [p for p in first_sandbox | second_sandbox if procs.is_running(p)] == []
